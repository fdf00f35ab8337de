package weights

import (
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// A Description says what a models bundle explains and how its networks are built: the input (its size,
// channels, range and how to draw it), the classes and their names, the classifier and its uncertainty (MC
// dropout with K fixed masks, or a deep ensemble of K members), and the VAE (its encoder to the latent mean and
// its decoder to the image). Each network is a list of layers whose tensors live in the bundle's weights files.
// Everything else in the project reads the model from here, and trusts it only after Check.
//
// A bundle carries it as DescriptionFile (JSON); a bundle made before descriptions existed (the digits' of
// issues 1–28) has none, and DescribeFiles makes one from its files' manifests, the same networks to the bit.
type Description struct {
	Format     int        `json:"format"` // DescriptionFormat
	Name       string     `json:"name"`   // what links and the page call the model: "digits"
	Title      string     `json:"title"`  // what the page shows: "Handwritten digits (MNIST)"
	Input      Input      `json:"input"`
	Classes    []string   `json:"classes"` // the classifier's outputs in order
	Classifier Classifier `json:"classifier"`
	VAE        VAE        `json:"vae"`
	// Search are the model's own defaults for the search where the digits' do not fit it (format 2); nil: the
	// digits' (clue.Defaults), as every description made before them.
	Search *SearchDefaults `json:"search,omitempty"`
	// Regression, when given (format 4), makes the classifier a predictor of a number: its networks end in a
	// mean and a standard deviation, and Classes name ranges of the prediction (regression.go).
	Regression *Regression `json:"regression,omitempty"`
}

// The formats of a Description. 1 is a chain of image layers; 2 reads networks as graphs (Layer.Inputs) with
// the layers format 1 lacked, and a model's search defaults (Search); 3 reads a table (Input.Kind KindTable) and
// the VAE's mixed likelihood; 4 a regression (Regression). A description is written in the oldest format that can say it
// (Description.MinFormat), so that a model of images stays readable by every build that runs its layers.
const (
	FormatChain = 1
	FormatGraph = 2
	FormatTable = 3
)

// DescriptionFormat is the newest format of a description of images, 2 (graphs): what those who describe an
// image model start from before MinFormat lowers it. Tables are FormatTable; a build reads up to NewestFormat.
const DescriptionFormat = FormatGraph

// NewestFormat is the newest format this build reads.
const NewestFormat = FormatRegression

// DescriptionFile is the name of a bundle's description.
const DescriptionFile = "model.json"

// MaxDescription bounds a description's size, so that a corrupt bundle cannot make the reader allocate much.
const MaxDescription = 1 << 20

// Input is what a model takes: images (the default), or a table's rows (Kind KindTable, format 3).
type Input struct {
	// Kind is KindImage (or empty, as every description before tables: an image) or KindTable. A table has
	// Columns and Noun (and may have PickFirst), and none of an image's fields.
	Kind    string  `json:"kind,omitempty"`
	Columns Columns `json:"columns,omitempty"`
	// An image's size, channels and range. They are left out of a table's JSON (omitempty changes nothing for
	// an image, whose are never zero, so its bytes and fingerprint stay as they were).
	Height   int        `json:"height,omitempty"`
	Width    int        `json:"width,omitempty"`
	Channels int        `json:"channels,omitempty"` // 1 (grey) or 3 (RGB)
	Range    [2]float64 `json:"range,omitzero"`     // the values' range: [0, 1]
	// Drawing is how an input is shown: DrawInk (grey ink, white on black, as the digits are) or DrawColour.
	Drawing string `json:"drawing,omitempty"`
	// Noun is what the page calls one input: "digit", "garment", "image".
	Noun string `json:"noun"`
	// Framing is how an ink drawing or an upload becomes the input: FrameMNIST (the default: the ink's box
	// scaled to 20/28 of the field and centred by its mass, as MNIST was made) or FrameFill (the object's box
	// scaled to fill the field and centred, as Fashion-MNIST was made).
	Framing string `json:"framing,omitempty"`
	// PickFirst says the page offers the models' own test items and uploads before the drawing pad: inputs one
	// would not draw with a mouse (a shoe).
	PickFirst bool `json:"pick_first,omitempty"`
}

// How an ink input is framed.
const (
	FrameMNIST = "mnist"
	FrameFill  = "fill"
)

// How inputs are drawn.
const (
	DrawInk    = "ink"    // one channel, 0 black and 1 white ink
	DrawColour = "colour" // three channels, RGB
)

// Size is the number of values of one input: a table's, its flattened row's (Columns.Width).
func (in Input) Size() int {
	if in.IsTable() {
		return in.Columns.Width()
	}
	return in.Height * in.Width * in.Channels
}

// Classifier is the model whose uncertainty is explained.
type Classifier struct {
	// Uncertainty is UncertaintyMCDropout (one network, Samples fixed dropout masks drawn from MaskSeed) or
	// UncertaintyEnsemble (Samples members, each a network of its own).
	Uncertainty string    `json:"uncertainty"`
	Samples     int       `json:"samples"`
	MaskSeed    uint64    `json:"mask_seed,omitempty"`
	Networks    []Network `json:"networks"` // one for MC dropout; Samples for an ensemble
}

// The kinds of a classifier's uncertainty.
const (
	UncertaintyMCDropout = "mc-dropout"
	UncertaintyEnsemble  = "ensemble"
)

// VAE is the generative model the search moves in.
type VAE struct {
	Latent int `json:"latent"`
	// Encoder maps an input to the latent mean μφ(x); Decoder maps a latent point to the image's logits
	// (Bernoulli: the image is their sigmoid) or to the image itself (Gaussian mean).
	Encoder    Network `json:"encoder"`
	Decoder    Network `json:"decoder"`
	Likelihood string  `json:"likelihood"` // LikelihoodBernoulli or LikelihoodGaussian
	// LogVariance, optional, maps an input to the encoder's log σ² (the encoder's layers but the last, then a
	// head of its own): nothing explains with it, but it measures the VAE's ELBO (deltaclue quality).
	LogVariance *Network `json:"log_variance,omitempty"`
}

// The VAE's likelihoods.
const (
	LikelihoodBernoulli = "bernoulli"
	LikelihoodGaussian  = "gaussian"
	// LikelihoodMixed is a table's (format 3; CLUE's "gauss_cat"): the decoder gives, in the flattened row's
	// layout, each number's standardised mean (a unit-variance Gaussian) and each category's logits over its
	// levels (a categorical).
	LikelihoodMixed = "mixed"
)

// Network is a list of layers applied in order; their tensors are in the bundle's weights file File.
type Network struct {
	File   string  `json:"file"`
	Layers []Layer `json:"layers"`
}

// Layer is one step of a network. Op says which; the other fields are its settings, those an op does not use
// left out. A layer's weights are int8 with a float32 scale per output unit or channel (or float32), named
// Weights and Bias in the network's file.
type Layer struct {
	Op string `json:"op"`
	// A network is a graph: Name names the layer's output for later layers to read, and Inputs lists what the
	// layer reads, each the name of an earlier layer or InputName (the network's input). A layer without Inputs
	// reads the layer before it (the first, the network's input): a chain names nothing, as every bundle made
	// before graphs did.
	Name   string   `json:"name,omitempty"`
	Inputs []string `json:"inputs,omitempty"`
	// dense: Out units, weights [in, Out] (row-major, y = x·W + b), bias [Out].
	// conv2d: Out channels, weights [Out, in, kh, kw]; conv-transpose2d: weights [in, Out, kh, kw] (PyTorch's).
	Out     int    `json:"out,omitempty"`
	Weights string `json:"weights,omitempty"`
	Bias    string `json:"bias,omitempty"`
	// conv2d, conv-transpose2d, max-pool, avg-pool: the window (height, width).
	Kernel        [2]int  `json:"kernel,omitzero"`
	Stride        [2]int  `json:"stride,omitzero"`
	Padding       [2]int  `json:"padding,omitzero"`
	OutputPadding [2]int  `json:"output_padding,omitzero"` // conv-transpose2d
	Scale         [2]int  `json:"scale,omitzero"`          // upsample (nearest), by whole factors
	Shape         []int   `json:"shape,omitempty"`         // reshape: [channels, height, width]
	Slope         float64 `json:"slope,omitempty"`         // leaky-relu: the negative slope
	// conv2d, conv-transpose2d: Groups splits the channels into groups convolved apart (PyTorch's groups; 0 is
	// 1; depthwise when it is the input's channels; weights [Out, in/Groups, kh, kw] and, transposed,
	// [in, Out/Groups, kh, kw]); Dilation spaces the kernel's taps (zero is [1, 1]).
	Groups   int    `json:"groups,omitempty"`
	Dilation [2]int `json:"dilation,omitzero"`
	// clip: the bounds, either absent for none (ReLU6 is clip to [0, 6]).
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// elu: α (stated); hard-sigmoid: max(0, min(1, α·x + β)) (ONNX's α 0.2, β 0.5; PyTorch's 1/6 and 1/2).
	Alpha float64 `json:"alpha,omitempty"`
	Beta  float64 `json:"beta,omitempty"`
	// gelu: "" for the exact form x·Φ(x) with erf, ApproximateTanh for the tanh form.
	Approximate string `json:"approximate,omitempty"`
	// dropout (MC dropout's): each unit, or each channel of an image, kept with probability 1 − Rate in every
	// posterior sample's fixed mask.
	Rate float64 `json:"rate,omitempty"`
}

// The layers a network may hold.
const (
	OpDense         = "dense"
	OpConv          = "conv2d"
	OpConvTranspose = "conv-transpose2d"
	OpMaxPool       = "max-pool"
	OpAvgPool       = "avg-pool"
	OpUpsample      = "upsample"
	OpFlatten       = "flatten"
	OpReshape       = "reshape"
	OpReLU          = "relu"
	OpLeakyReLU     = "leaky-relu"
	OpSigmoid       = "sigmoid"
	OpTanh          = "tanh"
	OpDropout       = "dropout"
	// Graphs (format 2): merges, more activations, global pooling, batch normalisation.
	OpAdd           = "add"    // the sum of two or more inputs of one shape (a residual connection)
	OpMul           = "mul"    // the elementwise product of two inputs, or of an image by one value per channel
	OpConcat        = "concat" // the inputs' channels one after another (images of one height and width)
	OpSiLU          = "silu"   // x·σ(x), Swish
	OpGELU          = "gelu"
	OpClip          = "clip"
	OpHardSigmoid   = "hard-sigmoid"
	OpHardSwish     = "hard-swish" // x·max(0, min(1, x/6 + 1/2))
	OpELU           = "elu"
	OpSoftplus      = "softplus"
	OpSoftmax       = "softmax"     // only where a classifier ends: the engine takes its input as the logits
	OpLogSoftmax    = "log-softmax" // the same
	OpGlobalAvgPool = "global-avg-pool"
	OpGlobalMaxPool = "global-max-pool"
	OpIdentity      = "identity"
	// batch-norm: eval-mode batch normalisation, folded to a per-channel scale (Weights [C]) and shift (Bias [C]),
	// where it cannot be folded into the layer before it.
	OpBatchNorm = "batch-norm"
)

// ApproximateTanh is gelu's tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
const ApproximateTanh = "tanh"

// InputName is how a layer's Inputs name the network's input.
const InputName = "input"

// Ops lists every layer a network may hold, in the order the documentation gives them.
var Ops = []string{OpDense, OpConv, OpConvTranspose, OpMaxPool, OpAvgPool, OpUpsample, OpFlatten, OpReshape,
	OpReLU, OpLeakyReLU, OpSigmoid, OpTanh, OpDropout, OpAdd, OpMul, OpConcat, OpSiLU, OpGELU, OpClip,
	OpHardSigmoid, OpHardSwish, OpELU, OpSoftplus, OpSoftmax, OpLogSoftmax, OpGlobalAvgPool, OpGlobalMaxPool,
	OpIdentity, OpBatchNorm}

// Shape is the shape of what flows between two layers: an image (C, H, W), or a vector of C values (H = W = 1,
// Flat): a vector is laid out as an image of one pixel per value, and an image flattens channel-major.
type Shape struct {
	C, H, W int
	Flat    bool
}

// Size is the number of values.
func (s Shape) Size() int { return s.C * s.H * s.W }

func (s Shape) String() string {
	if s.Flat {
		return fmt.Sprintf("%d values", s.C)
	}
	return fmt.Sprintf("%d×%d×%d", s.C, s.H, s.W)
}

// Vector is a shape of n values.
func Vector(n int) Shape { return Shape{C: n, H: 1, W: 1, Flat: true} }

// Image is an image's shape.
func Image(c, h, w int) Shape { return Shape{C: c, H: h, W: w} }

// InputShape is the shape of the model's input: an image, or a table's flattened row (a vector).
func (d *Description) InputShape() Shape {
	if d.Input.IsTable() {
		return Vector(d.Input.Columns.Width())
	}
	return Image(d.Input.Channels, d.Input.Height, d.Input.Width)
}

// Check says, in one sentence naming where, what makes the description one the project cannot run, or nil:
// every field in range, every layer one the engine runs with its settings, shapes that chain from the input
// through each network (the encoder to the latent size, the decoder back to the input, the classifier to the
// classes), and every tensor in the file the network names with the shape its layer needs. files maps the
// bundle's weights files by name.
func (d *Description) Check(files map[string]*File) error {
	if err := d.checkHeader(); err != nil {
		return err
	}
	if err := d.checkTableWidth(files); err != nil {
		return err
	}
	if err := d.checkClassifier(files); err != nil {
		return err
	}
	return d.checkVAE(files)
}

// CheckClassifier is Check's part for the header and the classifier alone.
func (d *Description) CheckClassifier(files map[string]*File) error {
	if err := d.checkHeader(); err != nil {
		return err
	}
	return d.checkClassifier(files)
}

// CheckVAE is Check's part for the header and the VAE alone.
func (d *Description) CheckVAE(files map[string]*File) error {
	if err := d.checkHeader(); err != nil {
		return err
	}
	return d.checkVAE(files)
}

// NetworkName is how errors name the classifier's network i: "the classifier", or "ensemble member i".
func (c Classifier) NetworkName(i int) string {
	if c.Uncertainty == UncertaintyEnsemble {
		return fmt.Sprintf("ensemble member %d", i)
	}
	return "the classifier"
}

// networks lists every network of the description.
func (d *Description) networks() []Network {
	nets := append([]Network{d.VAE.Encoder, d.VAE.Decoder}, d.Classifier.Networks...)
	if d.VAE.LogVariance != nil {
		nets = append(nets, *d.VAE.LogVariance)
	}
	return nets
}

// MinFormat is the oldest format that can say what the description says: 3 if its input is a table (or its VAE
// is of mixed likelihood), else 2 if a network is a graph or has a layer or setting of format 2, or the
// description gives search defaults, else 1.
func (d *Description) MinFormat() int {
	if !RegressionLeftOut && d.Regression != nil {
		return FormatRegression
	}
	if d.Input.Kind == KindTable || d.VAE.Likelihood == LikelihoodMixed {
		return FormatTable
	}
	if d.Search != nil {
		return FormatGraph
	}
	for _, n := range d.networks() {
		if n.UsesGraphs() {
			return FormatGraph
		}
	}
	return FormatChain
}

// checkHeader checks the format, the name, the input, the classes and the search defaults.
func (d *Description) checkHeader() error {
	switch {
	case d.Format < 1 || d.Format > NewestFormat:
		return fmt.Errorf("the model description is format %d; this build reads 1 to %d", d.Format, NewestFormat)
	case !RegressionLeftOut && d.Format < FormatRegression && d.Regression != nil:
		return fmt.Errorf("the model description says format %d, but a regression is format %d", d.Format, FormatRegression)
	case d.Format < FormatTable && d.MinFormat() == FormatTable:
		return fmt.Errorf("the model description says format %d, but a table (or a mixed likelihood) is format %d", d.Format, FormatTable)
	case d.Format < d.MinFormat() && d.Search != nil:
		return fmt.Errorf("the model description says format %d, but it gives search defaults, which are format %d", d.Format, d.MinFormat())
	case d.Format < d.MinFormat():
		return fmt.Errorf("the model description says format %d, but its networks are graphs or use layers of format %d", d.Format, d.MinFormat())
	case !ValidName(d.Name):
		return fmt.Errorf("the model's name %q must be 1 to 32 lowercase letters, digits and hyphens", d.Name)
	case d.Input.Kind != "" && d.Input.Kind != KindImage && d.Input.Kind != KindTable:
		return fmt.Errorf("the input's kind %q: %q (the default) or %q", clip(d.Input.Kind), KindImage, KindTable)
	case d.Input.IsTable() && TablesLeftOut:
		return errors.New("the input is a table, and this build (the dense-only worker) reads no tables")
	case !TablesLeftOut && d.Input.IsTable():
		if err := d.checkTable(); err != nil {
			return err
		}
	case len(d.Input.Columns) > 0:
		return errors.New("the input is an image and has columns: only a table (kind \"table\") has")
	case d.Input.Height < 1 || d.Input.Width < 1 || d.Input.Height > MaxInputSide || d.Input.Width > MaxInputSide:
		return fmt.Errorf("the input is %d×%d: each side must be 1 to %d pixels", d.Input.Height, d.Input.Width, MaxInputSide)
	case d.Input.Channels != 1 && d.Input.Channels != 3:
		return fmt.Errorf("the input has %d channels: 1 (grey) or 3 (colour)", d.Input.Channels)
	case !(d.Input.Range[0] < d.Input.Range[1]) || isBad(d.Input.Range[0]) || isBad(d.Input.Range[1]):
		return fmt.Errorf("the input's range %v is not an interval", d.Input.Range)
	case d.Input.Range != [2]float64{0, 1}:
		// Links, the pad and the figures hold values as k/255 of [0, 1]; a model normalised otherwise takes
		// that as its first layer's scale and bias when the bundle is made.
		return fmt.Errorf("the input's range is %v: the engine takes [0, 1] (fold other scaling into the first layer)", d.Input.Range)
	case d.Input.Drawing != DrawInk && d.Input.Drawing != DrawColour:
		return fmt.Errorf("the input's drawing %q: %q or %q", d.Input.Drawing, DrawInk, DrawColour)
	case d.Input.Drawing == DrawInk && d.Input.Channels != 1, d.Input.Drawing == DrawColour && d.Input.Channels != 3:
		return fmt.Errorf("the input is drawn as %q with %d channels: ink has 1, colour 3", d.Input.Drawing, d.Input.Channels)
	case d.Input.Framing != "" && d.Input.Framing != FrameMNIST && d.Input.Framing != FrameFill:
		return fmt.Errorf("the input's framing %q: %q (the default) or %q", d.Input.Framing, FrameMNIST, FrameFill)
	}
	switch {
	case d.Input.Noun == "" || len(d.Input.Noun) > 32:
		return fmt.Errorf("the input's noun %q must be 1 to 32 bytes", d.Input.Noun)
	case len(d.Classes) < 2 || len(d.Classes) > 1000:
		return fmt.Errorf("the model has %d classes: 2 to 1000", len(d.Classes))
	}
	seen := map[string]bool{}
	for i, c := range d.Classes {
		if c == "" || len(c) > 64 || strings.ContainsAny(c, "\n\r\t") {
			return fmt.Errorf("class %d's name %q must be 1 to 64 bytes on one line", i, c)
		}
		if seen[c] {
			return fmt.Errorf("class %d's name %q is given twice", i, c)
		}
		seen[c] = true
	}
	switch {
	case d.Regression != nil && RegressionLeftOut:
		return errors.New("this build reads no regression")
	case !RegressionLeftOut && d.Regression != nil:
		if err := d.checkRegression(); err != nil {
			return err
		}
	}
	return d.checkSearch()
}

// checkClassifier checks the classifier's networks.
func (d *Description) checkClassifier(files map[string]*File) error {
	c := d.Classifier
	switch c.Uncertainty {
	case UncertaintyMCDropout:
		if len(c.Networks) != 1 {
			return fmt.Errorf("an MC-dropout classifier has one network, not %d", len(c.Networks))
		}
	case UncertaintyEnsemble:
		if len(c.Networks) != c.Samples {
			return fmt.Errorf("an ensemble of %d members names %d networks", c.Samples, len(c.Networks))
		}
	default:
		return fmt.Errorf("the classifier's uncertainty %q: %q or %q", c.Uncertainty, UncertaintyMCDropout, UncertaintyEnsemble)
	}
	if c.Samples < 1 || c.Samples > 1000 {
		return fmt.Errorf("the classifier has %d samples: 1 to 1000", c.Samples)
	}
	for i, n := range c.Networks {
		where := c.NetworkName(i)
		out, dropouts, err := n.Chain(where, d.InputShape(), files)
		if err != nil {
			return err
		}
		if !RegressionLeftOut && d.IsRegression() && out.Size() != RegressionOutputs {
			return fmt.Errorf("%s ends in %v, not a regression's %d (the mean's and the standard deviation's)", where, out, RegressionOutputs)
		}
		if (RegressionLeftOut || !d.IsRegression()) && out.Size() != len(d.Classes) {
			return fmt.Errorf("%s ends in %v, not the %d classes", where, out, len(d.Classes))
		}
		if c.Uncertainty == UncertaintyMCDropout && dropouts == 0 {
			return fmt.Errorf("the MC-dropout classifier has no dropout layer")
		}
		if c.Uncertainty == UncertaintyEnsemble && dropouts > 0 {
			return fmt.Errorf("%s has a dropout layer: an ensemble's members are deterministic", where)
		}
	}
	return nil
}

// checkVAE checks the VAE's networks.
func (d *Description) checkVAE(files map[string]*File) error {
	v := d.VAE
	if v.Latent < 1 || v.Latent > 4096 {
		return fmt.Errorf("the VAE's latent size %d: 1 to 4096", v.Latent)
	}
	switch table := !TablesLeftOut && d.Input.IsTable(); {
	case table && v.Likelihood != LikelihoodMixed:
		return fmt.Errorf("the VAE's likelihood %q: a table's is %q (Gaussian numbers, categorical categories)", clip(v.Likelihood), LikelihoodMixed)
	case !table && v.Likelihood != LikelihoodBernoulli && v.Likelihood != LikelihoodGaussian:
		return fmt.Errorf("the VAE's likelihood %q: %q or %q (%q is a table's)", clip(v.Likelihood), LikelihoodBernoulli, LikelihoodGaussian, LikelihoodMixed)
	}
	for _, n := range d.networks()[:2] {
		if last := n.Layers[max(len(n.Layers)-1, 0):]; len(last) == 1 && (last[0].Op == OpSoftmax || last[0].Op == OpLogSoftmax) {
			return errors.New("the VAE's networks may not end in a softmax (only a classifier may)")
		}
	}
	out, dropouts, err := v.Encoder.Chain("the VAE's encoder", d.InputShape(), files)
	if err != nil {
		return err
	}
	if out.Size() != v.Latent || dropouts > 0 {
		return fmt.Errorf("the VAE's encoder ends in %v, not the latent size %d (or has dropout)", out, v.Latent)
	}
	out, dropouts, err = v.Decoder.Chain("the VAE's decoder", Vector(v.Latent), files)
	if err != nil {
		return err
	}
	if in := d.InputShape(); out.Size() != in.Size() || (!out.Flat && out != in) || dropouts > 0 {
		if d.Input.IsTable() {
			return fmt.Errorf("the VAE's decoder ends in %v, not the table's %d columns flattened to %v (or has dropout)", out, len(d.Input.Columns), in)
		}
		return fmt.Errorf("the VAE's decoder ends in %v, not the classifier's input %v (or has dropout)", out, in)
	}
	if v.LogVariance != nil {
		out, dropouts, err := v.LogVariance.Chain("the VAE's log-variance", d.InputShape(), files)
		if err != nil {
			return err
		}
		if out.Size() != v.Latent || dropouts > 0 {
			return fmt.Errorf("the VAE's log-variance ends in %v, not the latent size %d (or has dropout)", out, v.Latent)
		}
	}
	return nil
}

func isBad(v float64) bool { return v != v || v > 1e30 || v < -1e30 }

// ValidName says whether s is a name a model may have: 1 to 32 of a–z, 0–9 and "-" (share links carry it).
func ValidName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// DenseOnly says whether every network of the description is of the dense family (dense, ReLU, sigmoid, MC
// dropout, flatten, reshape): such models run on a worker built without the image layers (engine's denseonly).
// A table is not: its search needs the row head, which that worker leaves out too.
func (d *Description) DenseOnly() bool {
	if d.Input.IsTable() || d.IsRegression() {
		return false // its search decodes through the row head, or reads a regression: only the full worker has them
	}
	for _, n := range d.networks() {
		if n.UsesGraphs() {
			return false
		}
		if g, err := n.Graph("", d.InputShape(), nil); err == nil {
			for i, node := range g.Nodes {
				if node.Op == OpDropout && g.FoldsInto(i) < 0 { // its masks multiply activations: an op of the full worker
					return false
				}
			}
		}
		for _, l := range n.Layers {
			switch l.Op {
			case OpDense, OpReLU, OpSigmoid, OpDropout, OpFlatten, OpReshape:
			default:
				return false
			}
		}
	}
	return true
}

// MaxInputSide bounds an input's height and width; with at most 3 channels, MaxInputValues bounds its size.
const (
	MaxInputSide   = 512
	MaxInputValues = MaxInputSide * MaxInputSide * 3
)

// ParseDescription reads a description (JSON, unknown fields refused) without checking it against files.
func ParseDescription(data []byte) (*Description, error) {
	if len(data) > MaxDescription {
		return nil, fmt.Errorf("the model description is %d bytes, more than %d", len(data), MaxDescription)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var d Description
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("the model description is not one this build reads: %v", err)
	}
	if dec.More() {
		return nil, errors.New("the model description has more after its JSON object")
	}
	return &d, nil
}

// The digits' description: what a bundle without one (every bundle made before descriptions) is taken to be,
// once it checks against the bundle's files. Reached only from DigitsDescription's body (see shipped.go).
//
//go:embed digits.json
var digitsJSON []byte

// DigitsDescription returns the shipped digits models' description (weights/digits.json), parsed afresh.
func DigitsDescription() *Description {
	d, err := ParseDescription(digitsJSON)
	if err != nil {
		panic("weights/digits.json: " + err.Error()) // a build whose own file does not parse is broken
	}
	return d
}

// DescribeFiles is the description of a bundle made before descriptions: the digits' (its input, classes and
// names), with the networks its files' manifests state (MLP widths, the BNN's dropout rate, samples and mask
// seed). Either file may be nil: its part is then the digits' own. Check says whether the files are the digits'.
func DescribeFiles(vae, bnn *File) *Description {
	d := DigitsDescription()
	if bnn != nil {
		a := bnn.Manifest.Architecture
		n := Network{File: BundleBNN, Layers: []Layer{{Op: OpFlatten}}}
		for i := 0; i+1 < len(a.Layers); i++ {
			n.Layers = append(n.Layers, Layer{Op: OpDense, Out: a.Layers[i+1], Weights: LayerName(StackBNN, i) + "/weights", Bias: LayerName(StackBNN, i) + "/biases"})
			if i+2 < len(a.Layers) {
				n.Layers = append(n.Layers, Layer{Op: OpReLU}, Layer{Op: OpDropout, Rate: a.Dropout})
			}
		}
		d.Classifier = Classifier{Uncertainty: UncertaintyMCDropout, Samples: a.MCSamples, MaskSeed: a.MaskSeed, Networks: []Network{n}}
	}
	if vae != nil {
		a := vae.Manifest.Architecture
		enc := Network{File: BundleVAE, Layers: []Layer{{Op: OpFlatten}}}
		for i := 0; i+1 < len(a.Layers); i++ {
			enc.Layers = append(enc.Layers, Layer{Op: OpDense, Out: a.Layers[i+1], Weights: LayerName(StackEncoder, i) + "/weights", Bias: LayerName(StackEncoder, i) + "/biases"},
				Layer{Op: OpReLU})
		}
		enc.Layers = append(enc.Layers, Layer{Op: OpDense, Out: a.Latent, Weights: LayerName(StackEncoderMean, 0) + "/weights", Bias: LayerName(StackEncoderMean, 0) + "/biases"})
		dec := Network{File: BundleVAE}
		for i := 0; i+1 < len(a.Decoder); i++ {
			if i > 0 {
				dec.Layers = append(dec.Layers, Layer{Op: OpReLU})
			}
			dec.Layers = append(dec.Layers, Layer{Op: OpDense, Out: a.Decoder[i+1], Weights: LayerName(StackDecoder, i) + "/weights", Bias: LayerName(StackDecoder, i) + "/biases"})
		}
		in := d.Input
		dec.Layers = append(dec.Layers, Layer{Op: OpReshape, Shape: []int{in.Channels, in.Height, in.Width}})
		likelihood := LikelihoodBernoulli
		if a.Output != "sigmoid" {
			likelihood = a.Output // refused by Check, with its name
		}
		d.VAE = VAE{Latent: a.Latent, Encoder: enc, Decoder: dec, Likelihood: likelihood}
	}
	return d
}
