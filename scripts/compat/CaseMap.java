import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Prints java.lang.String's toUpperCase and toLowerCase of each input line
 * (Flink's UPPER and LOWER for non-ASCII strings: BinaryStringData), for
 * expr's TestCaseMappingAsJava. A line is a string spelled as hexadecimal
 * code points separated by spaces; the output line is "U" for a string
 * holding a code point this Java's Unicode does not define, else the upper
 * and lower case strings spelled the same way, separated by " | ".
 */
public class CaseMap {
    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        for (String line; (line = in.readLine()) != null; ) {
            StringBuilder s = new StringBuilder();
            boolean defined = true;
            for (String cp : line.trim().split(" ")) {
                int c = Integer.parseInt(cp, 16);
                defined &= Character.isDefined(c);
                s.appendCodePoint(c);
            }
            if (!defined) {
                out.append("U\n");
                continue;
            }
            out.append(spell(s.toString().toUpperCase())).append(" | ").append(spell(s.toString().toLowerCase())).append('\n');
        }
        System.out.print(out);
    }

    static String spell(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> b.append(b.length() == 0 ? "" : " ").append(Integer.toHexString(c)));
        return b.toString();
    }
}
