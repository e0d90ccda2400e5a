"""The tools beside the dive: the benchmarks and the cost measurement."""
