/* Keeps the support library non-empty before any helper exists. */
typedef int gcheap_test_support_empty;
