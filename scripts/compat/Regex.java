// Regex runs Flink's regular expression functions on java.util.regex, as
// SqlFunctionUtils.regExp, regexpReplace and regexpExtract compute them
// (their catch blocks included), as the reference for
// expr.TestJavaRegexAsJava. Each input line is tab-separated, every field
// but the first hex-encoded UTF-8:
//   R <text> <pattern>                  REGEXP(text, pattern)
//   P <text> <pattern> <replacement>    REGEXP_REPLACE(text, pattern, replacement)
//   E <text> <pattern> <group>          REGEXP_EXTRACT(text, pattern, group)
// and each output line the result: TRUE, FALSE, NULL, or the string
// hex-encoded after '='.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Regex {
    static String unhex(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    static String hex(String s) {
        StringBuilder sb = new StringBuilder("=");
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            String text = unhex(f[1]), pattern = unhex(f[2]);
            String res;
            switch (f[0]) {
                case "R":
                    if (pattern.isEmpty()) {
                        res = "FALSE";
                        break;
                    }
                    try {
                        res = Pattern.compile(pattern).matcher(text).find(0) ? "TRUE" : "FALSE";
                    } catch (Exception e) {
                        res = "FALSE";
                    }
                    break;
                case "P":
                    try {
                        res = hex(text.replaceAll(pattern, Matcher.quoteReplacement(unhex(f[3]))));
                    } catch (Exception e) {
                        res = "NULL";
                    }
                    break;
                default:
                    res = "NULL";
                    try {
                        Matcher m = Pattern.compile(pattern).matcher(text);
                        if (m.find()) {
                            String g = m.toMatchResult().group(Integer.parseInt(unhex(f[3])));
                            res = g == null ? "NULL" : hex(g);
                        }
                    } catch (Exception e) {
                        res = "NULL";
                    }
            }
            out.println(res);
        }
    }
}
