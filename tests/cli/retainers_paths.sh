# Sourced by the report tests: retainers_paths GCHEAP DUMP ID... prints each
# id's path from `gcheap retainers --format tsv` in the form of
# tests/browser/report_data.js's path views: "ID root KIND HOLDER" (holder:
# the static's container and label joined by a dot, or either alone), then
# "ID DEPTH STEP-ID SIZE TYPE FIELD" per step; "ID unreachable" when no root
# reaches it.
retainers_paths() {
    _g=$1 _d=$2
    shift 2
    for _id in "$@"; do
        "$_g" retainers -q --format tsv "$_d" "$_id" | awk -F'\t' -v id="$_id" '
            NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["status"] == "unreachable" { print id "\tunreachable"; next }
            $c["depth"] == 0 {
                h = $c["container"]; l = $c["label"]
                print id "\troot\t" $c["kind"] "\t" h (h != "" && l != "" ? "." : "") l
            }
            { print id "\t" $c["depth"] "\t" $c["id"] "\t" $c["size"] "\t" $c["type"] "\t" $c["field"] }'
    done
}
