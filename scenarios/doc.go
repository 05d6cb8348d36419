// Package scenarios is the lab's catalogue: the standard workload, the rows
// of the crash matrix, the variants graded by it, and the named stories of
// the course chapters that labrun plays back as timelines.
package scenarios
