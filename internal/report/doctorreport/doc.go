// Package doctorreport writes doctor's report (text and JSON) and its list of causes.
package doctorreport
