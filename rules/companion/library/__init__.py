"""The companion library: MindSpore code that converted trees import as ``ms_aux``.

These modules import MindSpore. The converter never imports them: it reads their source and copies
the entries a tree uses into the companion module it writes (``rules.companion.assemble``). Tests
import the assembled module to check each entry against torch.
"""
