"""`cupyx.scipy.special` under `warpsim run`: SciPy's special functions, computed on the host.

Each takes and gives device arrays. Elementwise functions give CuPy's dtypes:
float32 when every array argument is float32 or narrower (bool, 8- and
16-bit integers, float16), else float64, where SciPy gives float64 for the
narrow ones. softmax, log_softmax and logsumexp follow NumPy's arithmetic,
as CuPy's do. Importing this module without SciPy raises MissingDependency (an
ImportError) naming the extra: `pip install warpsim[scipy]`.
"""

from __future__ import annotations

from ._on_host import on_host, scipy_module
from ...cupy._missing import missing_attribute

scipy_module("special")       # MissingDependency naming the extra when SciPy is missing

ELEMENTWISE = (
    "erf", "erfc", "erfcx", "erfinv", "erfcinv", "gamma", "gammaln", "loggamma", "digamma",
    "psi", "polygamma", "gammainc", "gammaincc", "gammaincinv", "gammainccinv", "beta",
    "betaln", "betainc", "betaincinv", "expit", "logit", "log_expit", "ndtr", "ndtri",
    "log_ndtr", "i0", "i0e", "i1", "i1e", "k0", "k0e", "k1", "k1e", "j0", "j1", "y0", "y1",
    "yn", "zeta", "entr", "rel_entr", "kl_div", "huber", "pseudo_huber", "xlogy", "xlog1py",
    "exp1", "expi", "expn", "cbrt", "exp2", "exp10", "expm1", "log1p", "round", "sindg",
    "cosdg", "tandg", "cotdg", "radian", "boxcox", "boxcox1p", "inv_boxcox", "inv_boxcox1p",
    "binom", "poch", "ellipk", "ellipkm1",
)
ALONG_AXES = ("softmax", "log_softmax", "logsumexp")

__all__ = list(ELEMENTWISE + ALONG_AXES)

globals().update({name: on_host("special", name, ufunc_dtypes=True) for name in ELEMENTWISE})
globals().update({name: on_host("special", name) for name in ALONG_AXES})


def __getattr__(name: str):
    raise missing_attribute("cupyx.scipy.special", name)
