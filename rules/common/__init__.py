"""Analysis helpers shared by rule families (dataflow over LibCST statements)."""
