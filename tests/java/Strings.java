/* tests/java/Strings.java - keeps known strings in the heap for
 * tests/cli/test_hprof_strings.sh: Latin-1 ones (JDK 9+ compact strings keep
 * them one byte a character), UTF-16 ones (a character above U+00FF, one of
 * them outside the BMP: a surrogate pair), an empty one and a long one.
 * Writes them, one a line in UTF-8, to the file args[0] (the oracle: what
 * the JVM itself holds), prints its pid, then waits for a line on stdin.
 * Every string is a new object made at run time (not an interned literal). */
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

public class Strings {
    static final List<String> kept = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        String[] texts = {
            "gcheap latin-1: hello heap",
            "gcheap latin-1: caf\u00e9 cr\u00e8me br\u00fbl\u00e9e",
            "gcheap utf-16: \u017elu\u0165ou\u010dk\u00fd k\u016f\u0148",
            "gcheap utf-16: snowman \u2603, grinning face \ud83d\ude00",
            "gcheap \"quoted\" and a backslash \\",
            "",
            "gcheap long: " + "0123456789".repeat(20),
        };
        try (OutputStream out = Files.newOutputStream(Paths.get(args[0]))) {
            for (String t : texts) {
                kept.add(new String(t.toCharArray()));
                out.write((t + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();
        System.in.read();
        System.out.println(kept.size());
    }
}
