package main

import (
	"flag"
	"io"

	"github.com/deltaclue/deltaclue/engine/clue"
	"github.com/deltaclue/deltaclue/weights"
)

// modelParams makes *p the models' default parameters (clue.DefaultsFor their description: the digits' unless
// the description gives its own search defaults) with the search flags given on the command line applied over
// them, read as paramFlags reads them. A command reads its flags before it knows its models (-models), so
// their defaults are the digits' until this: a flag the user gave keeps its value, any other takes the models'.
// adjust, if not nil, changes the defaults first (experiment accepts every result).
func modelParams(fs *flag.FlagSet, p *clue.Params, d *weights.Description, adjust func(*clue.Params)) error {
	q := clue.DefaultsFor(d)
	if adjust != nil {
		adjust(&q)
	}
	again := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	again.SetOutput(io.Discard)
	finish := paramFlags(again, &q)
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err == nil && again.Lookup(f.Name) != nil {
			err = again.Set(f.Name, f.Value.String())
		}
	})
	if err == nil {
		err = finish()
	}
	if err != nil {
		return err
	}
	*p = q
	return nil
}
