package format

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/shopspring/decimal"
	"github.com/sqlrun/sqlrun/connectors/paimon/format/orc"
	"github.com/sqlrun/sqlrun/sql"
)

// ORC data files, as Paimon's OrcFileFormat writes them (OrcTypeUtil):
// BOOLEAN boolean, TINYINT..BIGINT tinyint..bigint, FLOAT float, DOUBLE
// double, CHAR/VARCHAR/STRING char/varchar/string, BINARY/BYTES binary,
// DECIMAL decimal, DATE date, TIME int (milliseconds of the day),
// TIMESTAMP timestamp, TIMESTAMP_LTZ timestamp with local time zone,
// ARRAY array, MAP map, ROW struct. A TIMESTAMP value is the wall clock
// the writer stored (in its time zone, the stripe's writerTimezone); a
// TIMESTAMP_LTZ value is the stored instant when
// 'orc.timestamp-ltz.legacy.type' = 'false', and with Paimon's default
// (true) the stored instant's wall clock in the writer's zone (the legacy
// writer shifts LTZ values by that zone, as the fixtures
// orc_timestamps and orc_timestamps_legacy show).

type orcFile struct {
	name string
	f    *orc.File
	ids  []int
}

func openORC(r io.ReaderAt, size int64, name string) (*File, error) {
	of, err := orc.Open(r, size)
	if err != nil {
		return nil, orcErr(name, err)
	}
	o := &orcFile{name: name, f: of}
	for _, c := range of.Schema().Children {
		id, _ := strconv.Atoi(c.Attributes["paimon.id"])
		o.ids = append(o.ids, id)
	}
	return &File{name: name, alien: o}, nil
}

// orcErr names the file; unsupported features are ErrUnsupportedFormat
// with the Paimon option that avoids them.
func orcErr(name string, err error) error {
	switch {
	case errors.Is(err, orc.ErrUnsupported):
		return fmt.Errorf("%w: orc data file %s: %v (sqlrun reads ORC files with 'orc.compress' none, zlib, snappy, lz4 or zstd and no union or encrypted columns)", ErrUnsupportedFormat, name, err)
	case errors.Is(err, orc.ErrCorrupt):
		return fmt.Errorf("%w %s: %v", ErrCorrupt, name, err)
	}
	return fmt.Errorf("orc data file %s: %w", name, err)
}

func (o *orcFile) columns() []string { return o.f.Schema().FieldNames }
func (o *orcFile) fieldIDs() []int   { return o.ids }
func (o *orcFile) numRows() int64    { return o.f.NumRows() }

func (o *orcFile) open(cols []int, ts []sql.DataType, p Projection) (func() ([][]any, int, error), error) {
	root := o.f.Schema()
	convs := make([]func(any) any, len(cols))
	for i, c := range cols {
		var err error
		if convs[i], err = orcConv(root.Children[c], ts[i], p.ORCInstantLTZ); err != nil {
			return nil, fmt.Errorf("column %s: %w", root.FieldNames[c], err)
		}
	}
	stripe := 0
	return func() ([][]any, int, error) {
		for stripe < o.f.NumStripes() {
			out, n, err := o.f.ReadStripe(stripe, cols)
			stripe++
			if err != nil {
				return nil, 0, orcErr(o.name, err)
			}
			if n == 0 {
				continue
			}
			for i, col := range out {
				for r, v := range col {
					if v != nil {
						col[r] = convs[i](v)
					}
				}
			}
			return out, n, nil
		}
		return nil, 0, nil
	}, nil
}

// orcConv converts a decoded ORC value of type ot to the Go value of the
// Paimon type t; the kinds must be the ones Paimon writes for t.
func orcConv(ot *orc.Type, t sql.DataType, instantLTZ bool) (func(any) any, error) {
	ok := func(ks ...orc.Kind) bool {
		for _, k := range ks {
			if ot.Kind == k {
				return true
			}
		}
		return false
	}
	id := func(v any) any { return v }
	bad := fmt.Errorf("ORC type %s cannot hold %s", ot, t)
	switch t.Root {
	case sql.TypeBoolean:
		if ok(orc.Boolean) {
			return id, nil
		}
	case sql.TypeTinyInt:
		if ok(orc.Byte) {
			return id, nil
		}
	case sql.TypeSmallInt:
		if ok(orc.Short) {
			return id, nil
		}
	case sql.TypeInt, sql.TypeTime:
		if ok(orc.Int) {
			return id, nil
		}
	case sql.TypeDate:
		if ok(orc.Date) {
			return id, nil
		}
	case sql.TypeBigInt:
		if ok(orc.Long) {
			return id, nil
		}
	case sql.TypeFloat:
		if ok(orc.Float) {
			return id, nil
		}
	case sql.TypeDouble:
		if ok(orc.Double) {
			return id, nil
		}
	case sql.TypeChar, sql.TypeVarChar:
		if ok(orc.String, orc.Varchar, orc.Char) {
			return id, nil
		}
	case sql.TypeBinary, sql.TypeVarBinary:
		if ok(orc.Binary) {
			return id, nil
		}
	case sql.TypeDecimal:
		if ok(orc.Decimal) {
			scale := int32(t.Scale)
			return func(v any) any {
				d := v.(decimal.Decimal)
				if d.Exponent() != -scale {
					d = d.Round(scale)
				}
				return d
			}, nil
		}
	case sql.TypeTimestamp, sql.TypeTimestampLTZ:
		if ok(orc.Timestamp, orc.TimestampInstant) {
			wall := t.Root == sql.TypeTimestamp || !instantLTZ
			return func(v any) any {
				ts := v.(orc.TS)
				s := ts.Sec
				if wall {
					s = ts.Wall
				}
				return sql.TimestampData{Millis: s*1000 + int64(ts.Nano)/1e6, NanoOfMilli: ts.Nano % 1e6}
			}, nil
		}
	case sql.TypeArray:
		if ok(orc.List) {
			el, err := orcConv(ot.Children[0], *t.Elem, instantLTZ)
			if err != nil {
				return nil, err
			}
			return func(v any) any {
				in := v.([]any)
				out := make([]any, len(in))
				for i, x := range in {
					if x != nil {
						out[i] = el(x)
					}
				}
				return out
			}, nil
		}
	case sql.TypeMap:
		if ok(orc.Map) {
			kt, vt := *t.Elem, *t.Value
			kc, err := orcConv(ot.Children[0], kt, instantLTZ)
			if err != nil {
				return nil, err
			}
			vc, err := orcConv(ot.Children[1], vt, instantLTZ)
			if err != nil {
				return nil, err
			}
			return func(v any) any {
				in := v.(orc.MapValue)
				m := &sql.Map{Keys: make([]any, len(in.Keys)), Values: make([]any, len(in.Values))}
				for i := range in.Keys {
					if in.Keys[i] != nil {
						m.Keys[i] = kc(in.Keys[i])
					}
					if in.Values[i] != nil {
						m.Values[i] = vc(in.Values[i])
					}
				}
				return m
			}, nil
		}
	case sql.TypeRow:
		if ok(orc.Struct) && len(ot.Children) == len(t.Fields) {
			cs := make([]func(any) any, len(t.Fields))
			for i, f := range t.Fields {
				var err error
				if cs[i], err = orcConv(ot.Children[i], f.Type, instantLTZ); err != nil {
					return nil, fmt.Errorf("field %s: %w", f.Name, err)
				}
			}
			return func(v any) any {
				in := v.([]any)
				out := make([]any, len(in))
				for i, x := range in {
					if x != nil {
						out[i] = cs[i](x)
					}
				}
				return out
			}, nil
		}
	}
	return nil, bad
}
