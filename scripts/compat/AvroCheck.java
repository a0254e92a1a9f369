// Reads Avro object container files (Paimon manifests and manifest lists,
// and the Avro KeyValue data files of postpone buckets)
// with the Apache Avro Java library, an independent reader of what sqlrun
// writes. Debian's Avro is 1.8, which predates the "zstandard" codec
// Paimon's manifests use (Avro 1.9): it is registered here over zstd-jni.
//
// Usage: java -cp <avro, jackson 1, zstd-jni jars> AvroCheck.java <file>...
// Prints per file "FILE <path> <schema full name> <records>", then per
// manifest entry "ENTRY <kind> <bucket> <totalBuckets> <file name>
// <file size> <row count> <level>", per index manifest entry "INDEX <kind>
// <partition bytes in hex> <bucket> <index type> <file name> <file size>
// <row count>" followed by one "DVRANGE <data file> <offset> <length>
// <cardinality>" per deletion vector it locates, per manifest list record
// "LIST <manifest file name> <file size>" and per KeyValue data record
// "ROW <field>=<value>..."
// (bytes in hex); on a failure "ERROR <path> <message>".
import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.file.Codec;
import org.apache.avro.file.CodecFactory;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;

public class AvroCheck {
    static class ZstdCodec extends Codec {
        public String getName() { return "zstandard"; }

        public ByteBuffer compress(ByteBuffer in) throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try (ZstdOutputStream z = new ZstdOutputStream(out)) {
                z.write(in.array(), in.arrayOffset() + in.position(), in.remaining());
            }
            return ByteBuffer.wrap(out.toByteArray());
        }

        public ByteBuffer decompress(ByteBuffer in) throws IOException {
            ByteArrayInputStream bin = new ByteArrayInputStream(in.array(), in.arrayOffset() + in.position(), in.remaining());
            try (ZstdInputStream z = new ZstdInputStream(bin)) {
                return ByteBuffer.wrap(z.readAllBytes());
            }
        }

        public boolean equals(Object o) { return o instanceof ZstdCodec; }
        public int hashCode() { return 1; }
    }

    public static void main(String[] args) throws Exception {
        CodecFactory.addCodec("zstandard", new CodecFactory() {
            protected Codec createInstance() { return new ZstdCodec(); }
        });
        for (String path : args) {
            try (DataFileReader<GenericRecord> r = new DataFileReader<>(new File(path), new GenericDatumReader<GenericRecord>())) {
                StringBuilder sb = new StringBuilder();
                long n = 0;
                for (GenericRecord rec : r) {
                    n++;
                    if (rec.getSchema().getField("_FILE") != null) {
                        GenericRecord f = (GenericRecord) rec.get("_FILE");
                        sb.append("ENTRY ").append(rec.get("_KIND")).append(' ').append(rec.get("_BUCKET")).append(' ')
                          .append(rec.get("_TOTAL_BUCKETS")).append(' ').append(f.get("_FILE_NAME")).append(' ')
                          .append(f.get("_FILE_SIZE")).append(' ').append(f.get("_ROW_COUNT")).append(' ')
                          .append(f.get("_LEVEL")).append('\n');
                    } else if (rec.getSchema().getField("_INDEX_TYPE") != null) {
                        ByteBuffer p = ((ByteBuffer) rec.get("_PARTITION")).duplicate();
                        StringBuilder hex = new StringBuilder("0x");
                        while (p.hasRemaining()) hex.append(String.format("%02x", p.get()));
                        sb.append("INDEX ").append(rec.get("_KIND")).append(' ').append(hex).append(' ')
                          .append(rec.get("_BUCKET")).append(' ').append(rec.get("_INDEX_TYPE")).append(' ')
                          .append(rec.get("_FILE_NAME")).append(' ').append(rec.get("_FILE_SIZE")).append(' ')
                          .append(rec.get("_ROW_COUNT")).append('\n');
                        Object ranges = rec.get("_DELETIONS_VECTORS_RANGES");
                        if (ranges != null) {
                            for (Object o : (java.util.List<?>) ranges) {
                                GenericRecord d = (GenericRecord) o;
                                sb.append("DVRANGE ").append(d.get("f0")).append(' ').append(d.get("f1")).append(' ')
                                  .append(d.get("f2")).append(' ').append(d.get("_CARDINALITY")).append('\n');
                            }
                        }
                    } else if (rec.getSchema().getField("_SEQUENCE_NUMBER") != null) {
                        sb.append("ROW");
                        for (org.apache.avro.Schema.Field fd : rec.getSchema().getFields()) {
                            Object v = rec.get(fd.name());
                            sb.append(' ').append(fd.name()).append('=');
                            if (v instanceof ByteBuffer) {
                                ByteBuffer b = ((ByteBuffer) v).duplicate();
                                sb.append("0x");
                                while (b.hasRemaining()) sb.append(String.format("%02x", b.get()));
                            } else {
                                sb.append(v);
                            }
                        }
                        sb.append('\n');
                    } else if (rec.getSchema().getField("_FILE_NAME") != null) {
                        sb.append("LIST ").append(rec.get("_FILE_NAME")).append(' ').append(rec.get("_FILE_SIZE")).append('\n');
                    }
                }
                System.out.print("FILE " + path + " " + r.getSchema().getFullName() + " " + n + "\n" + sb);
            } catch (Exception e) {
                System.out.println("ERROR " + path + " " + String.valueOf(e).replace('\n', ' '));
            }
        }
    }
}
