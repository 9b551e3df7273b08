// warpsim's cupy/complex.cuh: complex<float> and complex<double> as CuPy defines them.
//
// CuPy's complex<T> (its copy of thrust::complex, in the global namespace) is
// two T, real part first, with:
//  - + - * between two complex<T>, and with a T on either side (same T only:
//    complex<float> * double does not compile, as in CuPy);
//  - division scaled by |re| + |im| of the divisor (thrust's formula, which is
//    not C99 Annex G's, so results can differ from libcu++'s in the last bit),
//    with the fused multiply-adds ptxas forms from it on a GPU;
//  - == and != (also against a T), and NumPy's ordering for < <= > >= (real
//    part first, then imaginary);
//  - abs, arg, norm, conj, proj, polar, real, imag, exp, log, log10, pow, sqrt,
//    the trigonometric and hyperbolic functions and their inverses, isnan,
//    isinf, isfinite, log1p, log2, expm1.
// The functions are computed with libcu++'s cuda::std::complex (C99 special
// values, as CuPy's FreeBSD-derived ones); their last bits may differ from CuPy's.
#pragma once
#include <cuda/std/complex>

template <typename T>
struct alignas(2 * sizeof(T)) complex {
  typedef T value_type;
  T re_, im_;

  __host__ __device__ complex(const T& re = T(), const T& im = T()) : re_(re), im_(im) {}
  template <typename U>
  __host__ __device__ complex(const complex<U>& z) : re_(T(z.real())), im_(T(z.imag())) {}
  __host__ __device__ complex(const cuda::std::complex<T>& z) : re_(z.real()), im_(z.imag()) {}

  __host__ __device__ T real() const { return re_; }
  __host__ __device__ T imag() const { return im_; }
  __host__ __device__ void real(T re) { re_ = re; }
  __host__ __device__ void imag(T im) { im_ = im; }
  __host__ __device__ cuda::std::complex<T> std() const { return cuda::std::complex<T>(re_, im_); }

  __host__ __device__ complex& operator=(const T& re) { re_ = re; im_ = T(); return *this; }
  template <typename U>
  __host__ __device__ complex& operator=(const complex<U>& z) {
    re_ = T(z.real()); im_ = T(z.imag()); return *this;
  }
  __host__ __device__ complex& operator+=(const complex& z) { return *this = *this + z; }
  __host__ __device__ complex& operator-=(const complex& z) { return *this = *this - z; }
  __host__ __device__ complex& operator*=(const complex& z) { return *this = *this * z; }
  __host__ __device__ complex& operator/=(const complex& z) { return *this = *this / z; }
  __host__ __device__ complex& operator+=(const T& s) { re_ += s; return *this; }
  __host__ __device__ complex& operator-=(const T& s) { re_ -= s; return *this; }
  __host__ __device__ complex& operator*=(const T& s) { re_ *= s; im_ *= s; return *this; }
  __host__ __device__ complex& operator/=(const T& s) { re_ /= s; im_ /= s; return *this; }
};

// --- arithmetic -------------------------------------------------------------
template <typename T>
__host__ __device__ complex<T> operator+(const complex<T>& a, const complex<T>& b) {
  return complex<T>(a.real() + b.real(), a.imag() + b.imag());
}
template <typename T>
__host__ __device__ complex<T> operator+(const complex<T>& a, const T& s) { return complex<T>(a.real() + s, a.imag()); }
template <typename T>
__host__ __device__ complex<T> operator+(const T& s, const complex<T>& a) { return complex<T>(a.real() + s, a.imag()); }
template <typename T>
__host__ __device__ complex<T> operator-(const complex<T>& a, const complex<T>& b) {
  return complex<T>(a.real() - b.real(), a.imag() - b.imag());
}
template <typename T>
__host__ __device__ complex<T> operator-(const complex<T>& a, const T& s) { return complex<T>(a.real() - s, a.imag()); }
template <typename T>
__host__ __device__ complex<T> operator-(const T& s, const complex<T>& a) { return complex<T>(s - a.real(), -a.imag()); }
template <typename T>
__host__ __device__ complex<T> operator*(const complex<T>& a, const complex<T>& b) {
  return complex<T>(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}
template <typename T>
__host__ __device__ complex<T> operator*(const complex<T>& a, const T& s) { return complex<T>(a.real() * s, a.imag() * s); }
template <typename T>
__host__ __device__ complex<T> operator*(const T& s, const complex<T>& a) { return complex<T>(a.real() * s, a.imag() * s); }
template <typename T>
__host__ __device__ complex<T> operator/(const complex<T>& a, const complex<T>& b) {
  // Scale both by 1 / (|b.re| + |b.im|) first, so the squares cannot overflow.
  T scale = T(1) / (fabs(b.real()) + fabs(b.imag()));
  T ar = a.real() * scale, ai = a.imag() * scale, br = b.real() * scale, bi = b.imag() * scale;
  T inverse = T(1) / (br * br + bi * bi);
  // ptxas contracts CuPy's (ai * br) - (ar * bi), a mul and a sub without .rn in NVRTC's PTX, into
  // one fused multiply-add; written out here, so the PTX a simulator runs gives the GPU's bits
  // (checked on an H200: validation/cupy_complex/).
  return complex<T>((ar * br + ai * bi) * inverse, fma(ai, br, -(ar * bi)) * inverse);
}
template <typename T>
__host__ __device__ complex<T> operator/(const complex<T>& a, const T& s) { return complex<T>(a.real() / s, a.imag() / s); }
template <typename T>
__host__ __device__ complex<T> operator/(const T& s, const complex<T>& a) { return complex<T>(s) / a; }
template <typename T>
__host__ __device__ complex<T> operator+(const complex<T>& a) { return a; }
template <typename T>
__host__ __device__ complex<T> operator-(const complex<T>& a) { return complex<T>(-a.real(), -a.imag()); }

// --- comparisons (NumPy's order: real part, then imaginary part) -----------------
template <typename T>
__host__ __device__ bool operator==(const complex<T>& a, const complex<T>& b) {
  return a.real() == b.real() && a.imag() == b.imag();
}
template <typename T>
__host__ __device__ bool operator==(const complex<T>& a, const T& s) { return a.real() == s && a.imag() == T(); }
template <typename T>
__host__ __device__ bool operator==(const T& s, const complex<T>& a) { return a == s; }
template <typename T>
__host__ __device__ bool operator!=(const complex<T>& a, const complex<T>& b) { return !(a == b); }
template <typename T>
__host__ __device__ bool operator!=(const complex<T>& a, const T& s) { return !(a == s); }
template <typename T>
__host__ __device__ bool operator!=(const T& s, const complex<T>& a) { return !(a == s); }
template <typename T>
__host__ __device__ bool operator<(const complex<T>& a, const complex<T>& b) {
  return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}
template <typename T>
__host__ __device__ bool operator>(const complex<T>& a, const complex<T>& b) { return b < a; }
template <typename T>
__host__ __device__ bool operator<=(const complex<T>& a, const complex<T>& b) { return a == b || a < b; }
template <typename T>
__host__ __device__ bool operator>=(const complex<T>& a, const complex<T>& b) { return a == b || b < a; }

// --- functions ------------------------------------------------------------------
template <typename T>
__host__ __device__ T real(const complex<T>& z) { return z.real(); }
template <typename T>
__host__ __device__ T imag(const complex<T>& z) { return z.imag(); }
template <typename T>
__host__ __device__ complex<T> conj(const complex<T>& z) { return complex<T>(z.real(), -z.imag()); }
template <typename T>
__host__ __device__ T norm(const complex<T>& z) { return z.real() * z.real() + z.imag() * z.imag(); }
template <typename T>
__host__ __device__ T abs(const complex<T>& z) { return hypot(z.real(), z.imag()); }
template <typename T>
__host__ __device__ T arg(const complex<T>& z) { return atan2(z.imag(), z.real()); }
template <typename T>
__host__ __device__ complex<T> polar(const T& m, const T& theta = T()) { return cuda::std::polar(m, theta); }

#define WARPSIM_COMPLEX_FUNCTION(NAME)                                                 \
  template <typename T>                                                                \
  __host__ __device__ complex<T> NAME(const complex<T>& z) { return cuda::std::NAME(z.std()); }
WARPSIM_COMPLEX_FUNCTION(proj)
WARPSIM_COMPLEX_FUNCTION(exp)
WARPSIM_COMPLEX_FUNCTION(log)
WARPSIM_COMPLEX_FUNCTION(log10)
WARPSIM_COMPLEX_FUNCTION(sqrt)
WARPSIM_COMPLEX_FUNCTION(sin)
WARPSIM_COMPLEX_FUNCTION(cos)
WARPSIM_COMPLEX_FUNCTION(tan)
WARPSIM_COMPLEX_FUNCTION(sinh)
WARPSIM_COMPLEX_FUNCTION(cosh)
WARPSIM_COMPLEX_FUNCTION(tanh)
WARPSIM_COMPLEX_FUNCTION(asin)
WARPSIM_COMPLEX_FUNCTION(acos)
WARPSIM_COMPLEX_FUNCTION(atan)
WARPSIM_COMPLEX_FUNCTION(asinh)
WARPSIM_COMPLEX_FUNCTION(acosh)
WARPSIM_COMPLEX_FUNCTION(atanh)
#undef WARPSIM_COMPLEX_FUNCTION

template <typename T>
__host__ __device__ complex<T> pow(const complex<T>& z, const complex<T>& w) {
  return cuda::std::pow(z.std(), w.std());
}
template <typename T>
__host__ __device__ complex<T> pow(const complex<T>& z, const T& s) { return cuda::std::pow(z.std(), s); }
template <typename T>
__host__ __device__ complex<T> pow(const T& s, const complex<T>& z) { return cuda::std::pow(s, z.std()); }

template <typename T>
__host__ __device__ bool isnan(const complex<T>& z) { return isnan(z.real()) || isnan(z.imag()); }
template <typename T>
__host__ __device__ bool isinf(const complex<T>& z) { return isinf(z.real()) || isinf(z.imag()); }
template <typename T>
__host__ __device__ bool isfinite(const complex<T>& z) { return isfinite(z.real()) && isfinite(z.imag()); }
template <typename T>
__host__ __device__ complex<T> log1p(const complex<T>& z) { return log(z + T(1)); }
template <typename T>
__host__ __device__ complex<T> log2(const complex<T>& z) { return log(z) / log(T(2)); }
template <typename T>
__host__ __device__ complex<T> expm1(const complex<T>& z) { return exp(z) - T(1); }
