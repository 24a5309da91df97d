#pragma once
/// \file error.hpp
/// Exception types thrown by tcemu. Every message names the operand/file/argument, the shape or value
/// involved and the rule that was broken, so that it can be printed as a one-line error by the apps.
#include <stdexcept>
#include <string>

namespace tcemu {

/// Base class of every tcemu exception.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A caller passed an argument that violates a documented precondition (shape mismatch, unknown
/// scheme name, k < 1, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// Reading or writing a file failed, or its content does not have the documented layout.
class IoError : public Error {
 public:
  using Error::Error;
};

/// A CUDA / cuBLAS call failed, or a device backend was requested where none is available.
class DeviceError : public Error {
 public:
  using Error::Error;
};

}  // namespace tcemu
