package compare

// DiffInterval is the bootstrap interval of percentile pct of b's
// observations minus a's, each grouped by stream, computed as every
// interval of a comparison is (Noise: 95%, DefaultResamples, resampling
// whole streams) and seeded from key so the same observations always give
// the same interval. Nil when either side has fewer than MinNoiseStreams
// streams with observations. It lets other judges of a rise (a sweep's
// knee) use the comparison's own notion of noise.
func DiffInterval(a, b [][]float64, pct float64, key string) *Interval {
	nz := Noise{Resamples: DefaultResamples, Seed: noiseSeed}
	return bootstrapDiff(a, b, pct, nz.Resamples, nz.rng("", key, 0))
}
