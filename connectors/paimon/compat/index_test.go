package compat

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/bits"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The index files of the dynamic-bucket table t_dyn and the
// deletion-vector table t_dv (dynamic buckets too), checked without
// sqlrun's code: the index manifests as Avro Java decodes them, the data
// rows as DuckDB reads them (with their row positions), the HASH and
// DELETION_VECTORS files decoded here from Paimon's layouts (issue 15).

// indexEntry is an INDEX line of AvroCheck: an IndexManifestEntry.
type indexEntry struct {
	kind, bucket   int
	part, typ      string
	file           string
	size, rowCount int64
	ranges         []dvRange
}

// dvRange is a DVRANGE line: DeletionVectorMeta.
type dvRange struct {
	dataFile       string
	offset, length int64
	cardinality    string
}

// dataEntry is an ENTRY line: a ManifestEntry of a data file.
type dataEntry struct {
	kind, bucket, totalBuckets, level int
	file                              string
}

// partitionValue decodes a serialized one-string partition BinaryRow
// (SerializationUtils.serializeBinaryRow: arity, then the row) whose value
// is inline: 7 bytes at most, stored in the field's 8-byte slot with the
// length in the last byte's low bits and its high bit set
// (BinarySection.HIGHEST_FIRST_BIT). An unpartitioned table's row has no
// field.
func partitionValue(t *testing.T, hexBytes string) string {
	b, err := hex.DecodeString(strings.TrimPrefix(hexBytes, "0x"))
	if err != nil {
		t.Fatalf("partition %s: %v", hexBytes, err)
	}
	switch {
	case len(b) == 12 && binary.BigEndian.Uint32(b) == 0:
		return ""
	case len(b) == 20 && binary.BigEndian.Uint32(b) == 1 && b[19]&0x80 != 0 && int(b[19]&0x7f) <= 7:
		return string(b[12 : 12+int(b[19]&0x7f)])
	}
	t.Fatalf("partition %s: not a one-string inline partition row", hexBytes)
	return ""
}

// keyHash is the hash a HASH index file stores for an INT key: Paimon's
// BinaryRow.hashCode of the trimmed primary key row (8-byte header, the
// int in the first 4 bytes of its 8-byte slot, little-endian), i.e.
// MurmurHashUtils.hashBytesByWords over its 16 bytes with seed 42.
func keyHash(id int32) int32 {
	row := make([]byte, 16)
	binary.LittleEndian.PutUint32(row[8:], uint32(id))
	h := uint32(42)
	for i := 0; i < len(row); i += 4 {
		k := binary.LittleEndian.Uint32(row[i:])
		k *= 0xcc9e2d51
		k = bits.RotateLeft32(k, 15)
		k *= 0x1b873593
		h ^= k
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	h ^= uint32(len(row))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return int32(h)
}

// roaringPositions decodes a RoaringBitmap in its portable format (the
// RoaringFormatSpec, what Java's RoaringBitmap.serialize writes): array,
// bitmap and run containers.
func roaringPositions(b []byte) ([]int64, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("roaring bitmap of %d bytes", len(b))
	}
	cookie := binary.LittleEndian.Uint32(b)
	var n int
	var runs []byte
	p := 4
	switch {
	case cookie == 12346:
		n = int(binary.LittleEndian.Uint32(b[4:]))
		p = 8
	case cookie&0xffff == 12347:
		n = int(cookie>>16) + 1
		runs = b[4 : 4+(n+7)/8]
		p = 4 + (n+7)/8
	default:
		return nil, fmt.Errorf("roaring cookie %d", cookie)
	}
	if n > 1<<16 || len(b) < p+4*n {
		return nil, fmt.Errorf("roaring bitmap of %d containers in %d bytes", n, len(b))
	}
	keys, cards := make([]int, n), make([]int, n)
	for i := 0; i < n; i++ {
		keys[i] = int(binary.LittleEndian.Uint16(b[p+4*i:]))
		cards[i] = int(binary.LittleEndian.Uint16(b[p+4*i+2:])) + 1
	}
	p += 4 * n
	if runs == nil || n >= 4 {
		p += 4 * n // container offsets
	}
	var out []int64
	for i := 0; i < n; i++ {
		base := int64(keys[i]) << 16
		switch {
		case runs != nil && runs[i/8]&(1<<(i%8)) != 0:
			nr := int(binary.LittleEndian.Uint16(b[p:]))
			p += 2
			for r := 0; r < nr; r++ {
				start, l := int64(binary.LittleEndian.Uint16(b[p:])), int64(binary.LittleEndian.Uint16(b[p+2:]))
				for v := start; v <= start+l; v++ {
					out = append(out, base+v)
				}
				p += 4
			}
		case cards[i] <= 4096:
			for j := 0; j < cards[i]; j++ {
				out = append(out, base+int64(binary.LittleEndian.Uint16(b[p:])))
				p += 2
			}
		default:
			for w := 0; w < 1024; w++ {
				word := binary.LittleEndian.Uint64(b[p:])
				for word != 0 {
					out = append(out, base+int64(w*64+bits.TrailingZeros64(word)))
					word &= word - 1
				}
				p += 8
			}
		}
	}
	return out, nil
}

// latestIndexManifest reads the index manifest the table's latest snapshot
// names (snapshot/LATEST, then that snapshot's JSON).
func latestIndexManifest(t *testing.T, table string) string {
	l, err := os.ReadFile(filepath.Join(table, "snapshot", "LATEST"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(table, "snapshot", "snapshot-"+strings.TrimSpace(string(l))))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		IndexManifest string `json:"indexManifest"`
	}
	if err := json.Unmarshal(b, &s); err != nil || s.IndexManifest == "" {
		t.Fatalf("%s: no index manifest (%v):\n%s", table, err, b)
	}
	return s.IndexManifest
}

// checkIndexes checks t_dyn and t_dv. avro is AvroCheck's output for every
// manifest, duck duckdb.mjs's for every Parquet file.
func checkIndexes(t *testing.T, wh, avro string, duck []byte) {
	t.Helper()
	index := map[string][]*indexEntry{} // index manifest file name → entries
	data := map[string][]dataEntry{}    // table → its manifests' entries
	cur := ""
	for _, l := range strings.Split(strings.TrimSpace(avro), "\n") {
		f := strings.Fields(l)
		num := func(i int) int64 {
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				t.Fatalf("AvroCheck line %q: %v", l, err)
			}
			return n
		}
		switch f[0] {
		case "FILE":
			cur = f[1]
		case "INDEX":
			index[filepath.Base(cur)] = append(index[filepath.Base(cur)], &indexEntry{kind: int(num(1)), part: f[2], bucket: int(num(3)),
				typ: f[4], file: f[5], size: num(6), rowCount: num(7)})
		case "DVRANGE":
			es := index[filepath.Base(cur)]
			es[len(es)-1].ranges = append(es[len(es)-1].ranges, dvRange{dataFile: f[1], offset: num(2), length: num(3), cardinality: f[4]})
		case "ENTRY":
			tbl := filepath.Base(filepath.Dir(filepath.Dir(cur)))
			data[tbl] = append(data[tbl], dataEntry{kind: int(num(1)), bucket: int(num(2)), totalBuckets: int(num(3)), file: f[4], level: int(num(7))})
		}
	}
	// DuckDB's rows of the two tables' data files, by path below wh.
	type row struct {
		id  int32
		s   string
		pos int64
	}
	rows := map[string][]row{}
	sc := bufio.NewScanner(bytes.NewReader(duck))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var f duckFile
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if d.Decode(&f) != nil || !strings.HasPrefix(filepath.Base(f.File), "data-") {
			continue
		}
		rel, _ := filepath.Rel(wh, f.File)
		if !strings.HasPrefix(rel, "t_dyn"+string(filepath.Separator)) && !strings.HasPrefix(rel, "t_dv"+string(filepath.Separator)) {
			continue
		}
		for _, v := range f.Values {
			id, err1 := strconv.ParseInt(str(v["id"]), 10, 32)
			pos, err2 := strconv.ParseInt(str(v["file_row_number"]), 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: DuckDB row %v", rel, v)
			}
			rows[rel] = append(rows[rel], row{int32(id), str(v["s"]), pos})
		}
	}

	// hashIndex checks the latest HASH index of table against the keys
	// DuckDB reads in each partition/bucket directory: one index file per
	// directory with data, of 4 bytes per key (_ROW_COUNT and _FILE_SIZE
	// say so too), holding the hash of every key there; each key in one
	// bucket only. It returns the number of keys per "part/bucket".
	hashIndex := func(table string) map[string]int {
		root := filepath.Join(wh, table)
		keys := map[string]map[int32]bool{} // "part/bucket" → keys
		where := map[string]string{}        // "part/key" → bucket dir
		for rel, rs := range rows {
			if !strings.HasPrefix(rel, table+string(filepath.Separator)) {
				continue
			}
			dir := filepath.Dir(rel)
			bucket := strings.TrimPrefix(filepath.Base(dir), "bucket-")
			part := ""
			if p := filepath.Base(filepath.Dir(dir)); strings.HasPrefix(p, "part=") {
				part = strings.TrimPrefix(p, "part=")
			}
			k := part + "/" + bucket
			if keys[k] == nil {
				keys[k] = map[int32]bool{}
			}
			for _, r := range rs {
				pk := fmt.Sprintf("%s/%d", part, r.id)
				if w, ok := where[pk]; ok && w != k {
					t.Errorf("%s: key %s in buckets %s and %s", table, pk, w, k)
				}
				where[pk] = k
				keys[k][r.id] = true
			}
		}
		im := latestIndexManifest(t, root)
		seen := map[string]bool{}
		for _, e := range index[im] {
			if e.typ != "HASH" {
				continue
			}
			k := fmt.Sprintf("%s/%d", partitionValue(t, e.part), e.bucket)
			if e.kind != 0 || seen[k] {
				t.Errorf("%s %s: HASH entry of kind %d for %s (seen %v)", table, im, e.kind, k, seen[k])
			}
			seen[k] = true
			b, err := os.ReadFile(filepath.Join(root, "index", e.file))
			if err != nil {
				t.Errorf("%s: HASH index file: %v", table, err)
				continue
			}
			if int64(len(b)) != e.size || e.size != 4*e.rowCount || int(e.rowCount) != len(keys[k]) {
				t.Errorf("%s %s: HASH index %s of %d bytes, _FILE_SIZE %d, _ROW_COUNT %d; DuckDB reads %d keys there",
					table, k, e.file, len(b), e.size, e.rowCount, len(keys[k]))
			}
			hashes := map[int32]bool{}
			for i := 0; i+4 <= len(b); i += 4 {
				hashes[int32(binary.BigEndian.Uint32(b[i:]))] = true
			}
			for id := range keys[k] {
				if !hashes[keyHash(id)] {
					t.Errorf("%s %s: key %d (hash %d) is not in the HASH index file %s", table, k, id, keyHash(id), e.file)
				}
			}
		}
		counts := map[string]int{}
		for k, ids := range keys {
			counts[k] = len(ids)
			if !seen[k] {
				t.Errorf("%s: bucket %s has data and no HASH index file in %s", table, k, im)
			}
		}
		return counts
	}

	// t_dyn: 'dynamic-bucket.target-row-num' = 2, one assigner: a
	// partition's keys fill bucket 0, then 1, ... two keys each
	// (HashBucketAssigner, PartitionIndex.assign); every file entry has
	// _TOTAL_BUCKETS -1 (the table's bucket option).
	if got, want := fmt.Sprint(hashIndex("t_dyn")), "map[a/0:2 a/1:2 a/2:2 b/0:2]"; got != want {
		t.Errorf("t_dyn: keys per partition/bucket %s, want %s", got, want)
	}
	for _, e := range data["t_dyn"] {
		if e.totalBuckets != -1 {
			t.Errorf("t_dyn manifest entry %s: _TOTAL_BUCKETS %d, want -1", e.file, e.totalBuckets)
		}
	}

	// t_dv: its HASH index as above (5 keys, 2 per bucket), and its
	// deletion vectors decoded from the DELETION_VECTORS index files
	// (DeletionVectorsIndexFile: version byte 1; per vector [size BE]
	// [magic 1581511376 BE][portable roaring bitmap][crc32 BE of magic and
	// bitmap], the recorded length = size for 32-bit vectors). Reading the
	// live files as Paimon's deletion-vector reads do (level 0 skipped,
	// marked positions dropped) must give each key once, at its last value.
	if got, want := fmt.Sprint(hashIndex("t_dv")), "map[/0:2 /1:2 /2:1]"; got != want {
		t.Errorf("t_dv: keys per bucket %s, want %s", got, want)
	}
	root := filepath.Join(wh, "t_dv")
	deleted := map[string]map[int64]bool{} // data file → marked positions
	for _, e := range index[latestIndexManifest(t, root)] {
		if e.typ != "DELETION_VECTORS" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "index", e.file))
		if err != nil || int64(len(b)) != e.size || len(b) == 0 || b[0] != 1 {
			t.Fatalf("t_dv: deletion vector file %s (%d bytes, _FILE_SIZE %d): %v", e.file, len(b), e.size, err)
		}
		for _, r := range e.ranges {
			if r.offset+8+r.length > int64(len(b)) || int64(binary.BigEndian.Uint32(b[r.offset:])) != r.length {
				t.Fatalf("t_dv: vector of %s at %d, length %d, does not fit %s", r.dataFile, r.offset, r.length, e.file)
			}
			v := b[r.offset+4 : r.offset+4+r.length]
			if binary.BigEndian.Uint32(v) != 1581511376 || binary.BigEndian.Uint32(b[r.offset+4+r.length:]) != crc32.ChecksumIEEE(v) {
				t.Fatalf("t_dv: vector of %s in %s: bad magic or checksum", r.dataFile, e.file)
			}
			pos, err := roaringPositions(v[4:])
			if err != nil {
				t.Fatalf("t_dv: vector of %s: %v", r.dataFile, err)
			}
			if strconv.Itoa(len(pos)) != r.cardinality {
				t.Errorf("t_dv: vector of %s holds %d positions, _CARDINALITY %s", r.dataFile, len(pos), r.cardinality)
			}
			deleted[r.dataFile] = map[int64]bool{}
			for _, p := range pos {
				deleted[r.dataFile][p] = true
			}
		}
	}
	if len(deleted) == 0 {
		t.Fatalf("t_dv: no deletion vector in its latest index manifest")
	}
	// The live files: ADD minus DELETE entries over all manifests, an
	// entry named by file and level (FileEntry.Identifier: a file moved up
	// a level is deleted at the old level and added at the new one).
	type fileLevel struct {
		file  string
		level int
	}
	entries := map[fileLevel]int{}
	for _, e := range data["t_dv"] {
		if e.kind == 0 {
			entries[fileLevel{e.file, e.level}]++
		} else {
			entries[fileLevel{e.file, e.level}]--
		}
	}
	live := map[string]int{} // data file → level
	for fl, n := range entries {
		if n < 0 || n > 1 {
			t.Errorf("t_dv: %s at level %d added %d times more than deleted", fl.file, fl.level, n)
		}
		if n == 1 {
			if l, ok := live[fl.file]; ok {
				t.Errorf("t_dv: %s live at levels %d and %d", fl.file, l, fl.level)
			}
			live[fl.file] = fl.level
		}
	}
	var got, marked []string
	for rel, rs := range rows {
		if !strings.HasPrefix(rel, "t_dv"+string(filepath.Separator)) {
			continue
		}
		name := filepath.Base(rel)
		level, ok := live[name]
		for _, r := range rs {
			if deleted[name][r.pos] {
				marked = append(marked, fmt.Sprintf("%d=%s", r.id, r.s))
				continue
			}
			if ok && level > 0 {
				got = append(got, fmt.Sprintf("%d=%s", r.id, r.s))
			}
		}
	}
	sort.Strings(got)
	sort.Strings(marked)
	if g, w := strings.Join(got, " "), "1=new 2=two 3=three2 4=four 5=five"; g != w {
		t.Errorf("t_dv read as Paimon's deletion-vector reads (live files above level 0, marked rows dropped): %s, want %s", g, w)
	}
	for _, m := range marked {
		if m != "1=old" && m != "3=three" {
			t.Errorf("t_dv: a deletion vector marks %s, a live version", m)
		}
	}
	t.Logf("t_dv: deletion vectors mark %v", marked)
}
