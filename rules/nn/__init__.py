"""TM3xx: nn structure: Module to Cell, containers, parameters, buffers, devices, modes, layer attributes."""
