package htmldom

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// FindAll returns the elements under root, root included, that match.
func FindAll(root *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	return out
}

// Find returns the first element FindAll would return, or nil.
func Find(root *html.Node, match func(*html.Node) bool) *html.Node {
	if all := FindAll(root, match); len(all) > 0 {
		return all[0]
	}
	return nil
}

// Element matches elements with the tag.
func Element(tag string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == tag }
}

// Attrs renders an element's attributes for messages.
func Attrs(n *html.Node) string {
	if n == nil {
		return "(missing)"
	}
	var b strings.Builder
	b.WriteString("<" + n.Data)
	for _, a := range n.Attr {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Val)
	}
	return b.String() + ">"
}

// Attr returns the attribute's value, or "".
func Attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// Text is the node's text content with runs of white space collapsed.
func Text(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}
