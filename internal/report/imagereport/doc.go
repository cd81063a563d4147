// Package imagereport writes winkube images' report: which platform of each
// image every node pool pulls, or the runtime's error, as text or JSON.
package imagereport
