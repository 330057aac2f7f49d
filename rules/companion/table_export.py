"""Companion entries in library/export.py: torch qualified name -> entry name."""

ENTRIES: dict[str, str] = {
    "torch.onnx.export": "onnx_export",
    "torch.onnx.TrainingMode": "TrainingMode",
    "torch.onnx.OperatorExportTypes": "OperatorExportTypes",
    "torch.onnx.ExportOptions": "ExportOptions",
    "torch.onnx.dynamo_export": "dynamo_export",
    "torch.export.Dim.AUTO": "export_dim_auto",
}
