"""What instructions compute, on raw bits, for both executors.

The PTX machine (machine/isa/) and the SASS executor (sass/executor/) decode
their own instructions' modifiers and call these functions, so an operation's
meaning (rounding, NaN rules, flush-to-zero, truth tables, byte permutes) has
one home. Functions here take arrays and plain settings, never an instruction
object, and import only NumPy and the bottom layer.
"""
