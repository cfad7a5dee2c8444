package android.content;

/* Stand-in with AOSP's name (tests/java/rules/README.md). */
public abstract class Context {
}
