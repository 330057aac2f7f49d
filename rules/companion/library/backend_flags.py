"""torch's backend settings where a program reads them back: the values torch holds on a CPU
build, changed by the program's own assignments. In torch they choose CUDA kernels; MindSpore
chooses its own kernels, so nothing but the program reads them."""

cudnn_enabled = True
cudnn_benchmark = False
cudnn_deterministic = False
cudnn_allow_tf32 = True
cuda_matmul_allow_tf32 = False
cuda_matmul_allow_fp16_reduced_precision_reduction = True
cuda_matmul_allow_bf16_reduced_precision_reduction = True
