package plan

// Digest is the node's one-line text in EXPLAIN's optimized physical plan
// (without children or changelog mode), e.g.
// "ChangelogNormalize(key=[id])". Renderers outside this package (the DOT
// picture, plan/dot) show it in full where they abbreviate the label.
func (r *Rel) Digest() string { return nodeDescription(r, FormatPrefix) }
