package android.view;

/* Stand-in with AOSP's name and its mDestroyed field (tests/java/rules/README.md). */
public class Window {
    boolean mDestroyed;

    public void destroy() {
        mDestroyed = true;
    }
}
