// Package atomicwrite replaces files so that a reader, a crash or a full
// disk never sees or leaves anything but the old content or the new.
package atomicwrite
