// Strings computes, with the JDK classes Flink's string and encoding
// functions call (SqlFunctionUtils, UrlEncodeFunction, UrlDecodeFunction,
// StringCallGen's ENCODE/DECODE), the reference for
// expr.TestStringFuncsAsJava. Each input line is tab-separated, every field
// but the first hex-encoded UTF-8 (binary data as it is):
//   U <url>                      new java.net.URL: its parts, or ERR
//   E <text>                     URLEncoder.encode(text, UTF-8)
//   D <text>                     URLDecoder.decode(text, UTF-8), or ERR
//   B <text> <charset>           text.getBytes(charset)
//   S <bytes> <charset>          new String(bytes, charset)
//   N <text>                     whether Long.parseLong and Double.parseDouble take it
//   P <text> <regex> <limit>     text.split(regex, limit)
//   M <text> <pairs> <kv>        SqlFunctionUtils.strToMap's HashMap, as toString prints it
// and each output line the result, strings hex-encoded after '=', lists
// joined by ','.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

public class Strings {
    static byte[] unhexBytes(String h) {
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }

    static String unhex(String h) {
        return new String(unhexBytes(h), StandardCharsets.UTF_8);
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder("=");
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    static String hex(String s) {
        return s == null ? "null" : hex(s.getBytes(StandardCharsets.UTF_8));
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            String res;
            try {
                switch (f[0]) {
                    case "U": {
                        URL u = new URL(unhex(f[1]));
                        res = String.join(",", hex(u.getProtocol()), hex(u.getHost()), hex(u.getPath()),
                                hex(u.getQuery()), hex(u.getRef()), hex(u.getFile()), hex(u.getAuthority()),
                                hex(u.getUserInfo()));
                        break;
                    }
                    case "E":
                        res = hex(URLEncoder.encode(unhex(f[1]), "UTF-8"));
                        break;
                    case "D":
                        res = hex(URLDecoder.decode(unhex(f[1]), "UTF-8"));
                        break;
                    case "B":
                        res = hex(unhex(f[1]).getBytes(unhex(f[2])));
                        break;
                    case "S":
                        res = hex(new String(unhexBytes(f[1]), unhex(f[2])));
                        break;
                    case "N": {
                        String s = unhex(f[1]);
                        boolean l = true, d = true;
                        try {
                            Long.parseLong(s);
                        } catch (NumberFormatException e) {
                            l = false;
                        }
                        try {
                            Double.parseDouble(s);
                        } catch (NumberFormatException e) {
                            d = false;
                        }
                        res = l + "," + d;
                        break;
                    }
                    case "P": {
                        StringBuilder sb = new StringBuilder("[");
                        for (String p : unhex(f[1]).split(unhex(f[2]), Integer.parseInt(unhex(f[3])))) {
                            sb.append(hex(p)).append(',');
                        }
                        res = sb.append(']').toString();
                        break;
                    }
                    default: {
                        String text = unhex(f[1]);
                        String[] pairs = text.split(unhex(f[2]));
                        Map<String, String> m = new HashMap<>(pairs.length);
                        for (String pair : pairs) {
                            String[] kv = pair.split(unhex(f[3]), 2);
                            if (kv.length < 2) {
                                m.put(pair, null);
                            } else {
                                m.put(kv[0], kv[1]);
                            }
                        }
                        res = hex(text.isEmpty() ? "{}" : m.toString());
                    }
                }
            } catch (Exception e) {
                res = "ERR";
            }
            out.println(res);
        }
    }
}
