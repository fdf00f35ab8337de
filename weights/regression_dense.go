//go:build denseonly || imagesonly

package weights

// RegressionLeftOut says that this build reads no regression: the dense-only worker and the page built for
// classifiers of images (the digits' first visit) leave a regression's code out, and a predictor of a number is
// served the full worker and a page of its own (Description.DenseOnly, FullPage).
const RegressionLeftOut = true

// Regression is left out of this build (regression.go has it): its type stays empty, so that neither its fields
// nor its methods reach the digits' first visit; a description that declares one does not read.
type Regression struct{}

// FormatRegression and RegressionOutputs are regression.go's.
const (
	FormatRegression  = 4
	RegressionOutputs = 2
)

// IsRegression says whether the model predicts a number.
func (d *Description) IsRegression() bool { return d.Regression != nil }

// FullPage says whether the model needs the page built for every kind of model.
func (d *Description) FullPage() bool { return d.Input.IsTable() || d.IsRegression() }

// Outputs is the number of values each of the classifier's networks ends in.
func (d *Description) Outputs() int { return len(d.Classes) }

func (d *Description) checkRegression() error { return nil }
