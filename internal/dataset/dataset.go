// Package dataset names what the command line and the tools read a model's labelled inputs through: the digits'
// shipped test split (mnist.Set) and any other bundle's test items (IDX files) alike.
package dataset

// Items is a labelled set of inputs of one shape, each Size values in the model's input range, channel-major
// (C, H, W) as the engine reads them.
type Items interface {
	Len() int
	// Size is the number of values of one item.
	Size() int
	// Label is item i's class index.
	Label(i int) int
	// Float writes item i's values into dst (allocated when nil) and returns it.
	Float(i int, dst []float32) []float32
}
