"""`cupyx.scipy.ndimage` under `warpsim run`: SciPy's ndimage functions, computed on the host.

Filters, interpolation (zoom, shift, rotate, affine_transform,
map_coordinates), morphology, label and the label measurements take and
give device arrays, with SciPy's (and CuPy's) output dtypes; `output=` may
be a device array, which is filled. Importing this module without SciPy
raises MissingDependency (an ImportError) naming the extra: `pip install warpsim[scipy]`.
"""

from __future__ import annotations

from ._on_host import on_host, scipy_module
from ...cupy._missing import missing_attribute

scipy_module("ndimage")       # MissingDependency naming the extra when SciPy is missing

FUNCTIONS = (
    "convolve", "correlate", "convolve1d", "correlate1d", "gaussian_filter", "gaussian_filter1d",
    "gaussian_laplace", "gaussian_gradient_magnitude", "uniform_filter", "uniform_filter1d",
    "median_filter", "minimum_filter", "maximum_filter", "minimum_filter1d", "maximum_filter1d",
    "percentile_filter", "rank_filter", "prewitt", "sobel", "laplace", "zoom", "shift", "rotate",
    "affine_transform", "map_coordinates", "spline_filter", "spline_filter1d", "label",
    "sum_labels", "mean", "variance", "standard_deviation", "minimum", "maximum",
    "center_of_mass", "binary_erosion", "binary_dilation", "binary_opening", "binary_closing",
    "binary_fill_holes", "distance_transform_edt", "grey_erosion", "grey_dilation",
    "generate_binary_structure",
)

__all__ = list(FUNCTIONS)

globals().update({name: on_host("ndimage", name) for name in FUNCTIONS})


def __getattr__(name: str):
    raise missing_attribute("cupyx.scipy.ndimage", name)
