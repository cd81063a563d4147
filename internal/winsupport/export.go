package winsupport

import "sort"

// ImagePrefix is a row of the image table as other front-ends see it:
// internal/policy compiles the table into the CEL of the exported
// admission policies, so that they classify images as ParseImage does.
type ImagePrefix struct {
	Prefix   string
	Platform Platform
}

// ImagePrefixes returns the image table's repository prefixes.
func (Model) ImagePrefixes() []ImagePrefix {
	out := make([]ImagePrefix, len(imageTable))
	for i, k := range imageTable {
		out[i] = ImagePrefix{Prefix: k.Prefix, Platform: k.Platform}
	}
	return out
}

// LinuxVariantWords returns the tag words that make a multi-platform
// repository's tag Linux-only, sorted.
func (Model) LinuxVariantWords() []string {
	out := make([]string, 0, len(linuxVariantWords))
	for w := range linuxVariantWords {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}
