package cloudprofile

import "strings"

// lines finds the line of a text in a file, for notes about values read
// from decoded documents.
type lines []string

func lineIndex(data []byte) lines { return strings.Split(string(data), "\n") }

// find is the 1-based line of the first line holding, trimmed, any of the
// texts; 0 when none does. Quotes are ignored.
func (ls lines) find(texts ...string) int {
	for i, l := range ls {
		t := strings.NewReplacer(`"`, "", "'", "").Replace(strings.TrimSpace(l))
		for _, x := range texts {
			if strings.Contains(t, x) {
				return i + 1
			}
		}
	}
	return 0
}
