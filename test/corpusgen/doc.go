// Package corpusgen generates realistic hybrid Linux/Windows manifest
// corpora, deterministic by seed, for benchmarks and fuzz seeds.
package corpusgen
