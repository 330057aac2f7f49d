"""Companion entries in library/plumbing.py: torch qualified name -> entry name.

Most stand in for refused table entries (rules/api/table_report.py) and replace every call. The
autocast entries are used only where torch itself computes in full precision (rules/api/plumbing.py
decides), so they are not listed here.
"""

ENTRIES: dict[str, str] = {
    "torch.jit.is_scripting": "is_scripting",
    "torch.jit.script": "jit_script",
    "torch.compile": "compile",
    "torch.compiler.is_compiling": "is_compiling",
    "torch.compiler.is_exporting": "is_exporting",
    "torch.fx.wrap": "fx_wrap",
    "torch.compiler.disable": "compiler_disable",
    "torch._dynamo.disable": "compiler_disable",
    "torch.compiler.allow_in_graph": "compiler_hint",
    "torch._dynamo.allow_in_graph": "compiler_hint",
    "torch._dynamo.assume_constant_result": "compiler_hint",
    "torch.compiler.assume_constant_result": "compiler_hint",
    "torch._dynamo.mark_static_address": "mark_static_address",
    "torch.library.custom_op": "custom_op",
    "torch.library.register_fake": "library_register",
    "torch.library.register_autograd": "library_register",
    "torch.library.register_kernel": "library_register",
    "torch.library.impl": "library_register",
    "torch.utils.checkpoint.checkpoint": "checkpoint",
    "torch.utils.checkpoint.checkpoint_sequential": "checkpoint_sequential",
    "torch.hub.load_state_dict_from_url": "load_state_dict_from_url",
    "torch.hub.load": "load_hub_model",
    "torch.hub.get_dir": "hub_get_dir",
    "torch.hub.download_url_to_file": "download_url_to_file",
    "torch.jit.annotate": "jit_annotate",
    "torch.hub._get_torch_home": "_torch_home",
    "torch.hub.HASH_REGEX": "HASH_REGEX",
    "torch.hub.urlparse": "hub_urlparse",
    "torch.device": "device",
    "torch.cuda.is_available": "cuda_is_available",
    "torch.npu.is_available": "npu_is_available",
    "torch.backends.mps.is_available": "mps_is_available",
    "torch.accelerator.is_available": "accelerator_is_available",
    "torch.accelerator.current_accelerator": "current_accelerator",
    "torch.finfo": "finfo",
    "torch.iinfo": "iinfo",
    "torch.is_autocast_enabled": "is_autocast_enabled",
    "torch.is_autocast_cpu_enabled": "is_autocast_enabled",
    "torch.nn.parallel.data_parallel": "data_parallel",
    "torch.__version__": "torch_version",
    "torch.version.__version__": "torch_version",
}

# Entries the converter writes only where a rule has checked the call's arguments.
CONDITIONAL: dict[str, str] = {
    "torch.autocast": "autocast",
    "torch.amp.autocast": "autocast",
    "torch.cuda.amp.autocast": "cuda_autocast",
    "torch.cpu.amp.autocast": "cpu_autocast",
}

# Torch modules named as values (`device_mod = torch.cuda`): the whole module, never the head of
# an attribute chain (`torch.cuda.synchronize()` keeps its own mapping or finding).
MODULE_VALUES: dict[str, str] = {
    "torch.cuda": "cuda",
    "torch.npu": "npu",
}
