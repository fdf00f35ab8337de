//go:build imagesonly || denseonly

package app

import (
	"fmt"

	"github.com/maxence-charriere/go-app/v10/pkg/app"

	"github.com/deltaclue/deltaclue/wasm/worker/searchworker"
)

// The page built for classifiers of images has no regression (regression.go).

func regressionView(*searchworker.Inspection, float64) app.UI { return nil }

func explanationBand(string, *float32, float32, float64) app.UI { return nil } // (no regression: never called)

// uncertaintyText is Words.UncertaintyOf for a classifier, written out: calling that through the page's Words
// cost the digits' first visit 0.7 KB gzipped.
func uncertaintyText(_ *float32, h float32) string { return fmt.Sprintf("H %.2f", h) }
