"""`cupy.cuda.texture`: named, not simulated.

warpsim has no texture units or CUDA arrays; the classes exist so a program
that imports them loads, and making one raises NotProvidedError.
"""

from __future__ import annotations

from .._missing import NotProvided, missing_attribute

_WHY = "texture and surface memory are not simulated"

ChannelFormatDescriptor = NotProvided.named("cupy.cuda.texture.ChannelFormatDescriptor", _WHY)
CUDAarray = NotProvided.named("cupy.cuda.texture.CUDAarray", _WHY)
ResourceDescriptor = NotProvided.named("cupy.cuda.texture.ResourceDescriptor", _WHY)
TextureDescriptor = NotProvided.named("cupy.cuda.texture.TextureDescriptor", _WHY)
TextureObject = NotProvided.named("cupy.cuda.texture.TextureObject", _WHY)
SurfaceObject = NotProvided.named("cupy.cuda.texture.SurfaceObject", _WHY)


def __getattr__(name):
    raise missing_attribute("cupy.cuda.texture", name)
