//go:build denseonly || imagesonly

package weights

// RegressionLeftOut says that this build reads no regression: the dense-only worker and the page built for
// classifiers of images (the digits' first visit) leave a regression's code out (the code that asks for it is
// unlinked where this constant says so), and a predictor of a number is served the full worker and a page of its
// own (Description.DenseOnly, FullPage). A description that declares one is refused here in a sentence.
const RegressionLeftOut = true
