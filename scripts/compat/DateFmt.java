// DateFmt formats and parses date-times with java.time.format.DateTimeFormatter,
// the formatter Flink's DATE_FORMAT and TO_TIMESTAMP(s, format) use
// (DateTimeUtils), as the reference for expr.TestJavaPatternsAsJava. Each
// input line is tab-separated:
//   F <pattern> <epoch-second> <nano>   format that UTC local date-time
//   P <pattern> <text>                  parse, filling the fields the
//                                       pattern lacks as Flink's
//                                       DateTimeUtils.fromTemporalAccessor does
//   SF <pattern> <epoch-milli>          format with java.text.SimpleDateFormat
//                                       in UTC (FROM_UNIXTIME)
//   SP <pattern> <text>                 SimpleDateFormat.parse(String) in UTC:
//                                       the epoch milliseconds (UNIX_TIMESTAMP,
//                                       TO_DATE)
// and each output line the result, or ERR.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.text.SimpleDateFormat;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;

public class DateFmt {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split("\t", -1);
            try {
                if (f[0].startsWith("S")) {
                    SimpleDateFormat sdf = new SimpleDateFormat(f[1], Locale.US);
                    sdf.setTimeZone(TimeZone.getTimeZone("UTC"));
                    if (f[0].equals("SF")) {
                        out.println(sdf.format(new Date(Long.parseLong(f[2]))));
                    } else {
                        out.println(sdf.parse(f[2]).getTime());
                    }
                    continue;
                }
                DateTimeFormatter fmt = DateTimeFormatter.ofPattern(f[1], Locale.US);
                if (f[0].equals("F")) {
                    LocalDateTime t = LocalDateTime.ofEpochSecond(
                            Long.parseLong(f[2]), Integer.parseInt(f[3]), ZoneOffset.UTC);
                    out.println(t.format(fmt));
                } else {
                    TemporalAccessor a = fmt.parse(f[2]);
                    int y = a.isSupported(ChronoField.YEAR) ? a.get(ChronoField.YEAR) : 1970;
                    int mo = a.isSupported(ChronoField.MONTH_OF_YEAR) ? a.get(ChronoField.MONTH_OF_YEAR) : 1;
                    int d = a.isSupported(ChronoField.DAY_OF_MONTH) ? a.get(ChronoField.DAY_OF_MONTH) : 1;
                    int h = a.isSupported(ChronoField.HOUR_OF_DAY) ? a.get(ChronoField.HOUR_OF_DAY) : 0;
                    int mi = a.isSupported(ChronoField.MINUTE_OF_HOUR) ? a.get(ChronoField.MINUTE_OF_HOUR) : 0;
                    int s = a.isSupported(ChronoField.SECOND_OF_MINUTE) ? a.get(ChronoField.SECOND_OF_MINUTE) : 0;
                    int n = a.isSupported(ChronoField.NANO_OF_SECOND) ? a.get(ChronoField.NANO_OF_SECOND) : 0;
                    LocalDateTime t = LocalDateTime.of(y, mo, d, h, mi, s, n);
                    out.println(String.format("%04d-%02d-%02d %02d:%02d:%02d.%09d",
                            t.getYear(), t.getMonthValue(), t.getDayOfMonth(),
                            t.getHour(), t.getMinute(), t.getSecond(), t.getNano()));
                }
            } catch (Exception e) {
                out.println("ERR");
            }
        }
    }
}
