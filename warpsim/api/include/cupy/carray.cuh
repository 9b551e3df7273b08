// warpsim's cupy/carray.cuh: CArray<T, ndim> and CIndexer<ndim> as CuPy's generated kernels take them.
//
// A generated kernel receives each array as a struct by value (pointer, size,
// shape, byte strides) and the loop's shape as an indexer that turns a flat
// index into a multi-index; warpsim.api.carray packs the same layout on the
// host. Members are those CuPy's kernels use: x[i], x[idx], size(), shape(),
// strides(), _ind.set(i), _ind.get(), _ind.size(). float16 is CUDA's __half.
#pragma once
#include <cupy/float16.cuh>

template <typename T, int ndim>
class CArray {
 public:
  T* data_;
  ptrdiff_t size_;
  ptrdiff_t shape_[ndim];
  ptrdiff_t strides_[ndim];   // in bytes
  __device__ ptrdiff_t size() const { return size_; }
  __device__ const ptrdiff_t* shape() const { return shape_; }
  __device__ const ptrdiff_t* strides() const { return strides_; }
  __device__ T* data() const { return data_; }
  __device__ T& operator[](const ptrdiff_t* index) const {
    char* at = reinterpret_cast<char*>(data_);
    for (int d = 0; d < ndim; ++d) at += strides_[d] * index[d];
    return *reinterpret_cast<T*>(at);
  }
  __device__ T& operator[](ptrdiff_t flat) const {   // C order over shape_
    char* at = reinterpret_cast<char*>(data_);
    for (int d = ndim - 1; d >= 0; --d) {
      at += strides_[d] * (flat % shape_[d]);
      flat /= shape_[d];
    }
    return *reinterpret_cast<T*>(at);
  }
};

template <typename T>
class CArray<T, 0> {
 public:
  T* data_;
  ptrdiff_t size_;
  __device__ ptrdiff_t size() const { return size_; }
  __device__ T* data() const { return data_; }
  __device__ T& operator[](const ptrdiff_t*) const { return *data_; }
  __device__ T& operator[](ptrdiff_t) const { return *data_; }
};

template <int ndim>
class CIndexer {
 public:
  ptrdiff_t size_;
  ptrdiff_t shape_[ndim];
  ptrdiff_t index_[ndim];
  __device__ ptrdiff_t size() const { return size_; }
  __device__ const ptrdiff_t* shape() const { return shape_; }
  __device__ void set(ptrdiff_t flat) {
    for (int d = ndim - 1; d >= 0; --d) {
      index_[d] = flat % shape_[d];
      flat /= shape_[d];
    }
  }
  __device__ const ptrdiff_t* get() const { return index_; }
};

template <>
class CIndexer<0> {
 public:
  ptrdiff_t size_;
  __device__ ptrdiff_t size() const { return size_; }
  __device__ void set(ptrdiff_t) {}
  __device__ const ptrdiff_t* get() const { return nullptr; }
};
