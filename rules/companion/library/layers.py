"""Layer classes that take torch's constructor arguments, built on MindSpore's layers."""
