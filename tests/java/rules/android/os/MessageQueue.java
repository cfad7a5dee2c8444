package android.os;

/* Stand-in with AOSP's name and its mQuitting field (tests/java/rules/README.md). */
public class MessageQueue {
    boolean mQuitting;

    public void quit() {
        mQuitting = true;
    }
}
