#!/usr/bin/env python3
# Exports a real object detector, torchvision's SSDlite320 MobileNetV3-Large,
# to ONNX, so that Loom can be compared with ONNX Runtime on a graph whose
# post-processing ends in ONNX NonMaxSuppression (plus TopK, per-class
# score filtering and box decoding).
#
#   /usr/bin/python3 tools/real_models/export_detector.py [OUT_DIR]
#
# OUT_DIR (default /tmp/detector) receives:
#   detector.onnx        the model: input "images" [1,3,320,320] float32,
#                        outputs "boxes" [N,4] float32, "scores" [N] float32,
#                        "labels" [N] int64 (N <= 300, detections_per_img)
#   input.bin/input.json a deterministic image (seeded uniform in [0,1]) as
#                        raw float32 little-endian data and
#                        {"dtype": "float32", "dims": [1,3,320,320]}, the
#                        format tools/real_models/ort_compare.js reads
#                        (name: images=OUT_DIR/input)
#
# Needs Debian's python3-torch and python3-torchvision (no downloads: the
# weights are random, seeded with torch.manual_seed(0)). Untrained, the
# network's activations shrink to ~1e-14 by the head (BatchNorm's default
# running stats), so every score would be exactly 1/91 and every box an
# anchor: all ties. The script therefore first calibrates the BatchNorm
# running statistics on a few seeded random images, which gives logits of
# std ~0.4 and distinct scores in (0.0006, 0.1). score_thresh is then set to
# SCORE_THRESH so that the per-class score filter drops some candidates and
# NMS still sees thousands of boxes and suppresses many of them; the script
# prints how many boxes PyTorch has before and after NMS on the saved input.
import json
import os
import sys
import time

import torch
import torchvision
from torchvision.models.detection import ssdlite320_mobilenet_v3_large

OPSET = 16
# Near the middle of the calibrated scores: about half of the 90 classes x
# 300 top candidates pass the filter.
SCORE_THRESH = 0.02


def calibrate_batchnorm(model):
  """Sets every BatchNorm's running mean/var to the batch statistics of a
  few seeded random images (cumulative average), so activations keep their
  scale through the untrained network."""
  for mod in model.modules():
    if isinstance(mod, torch.nn.BatchNorm2d):
      mod.reset_running_stats()
      mod.momentum = None
  gen = torch.Generator().manual_seed(2)
  model.backbone.train()
  model.head.train()
  with torch.no_grad():
    for _ in range(4):
      batch = torch.rand(4, 3, 320, 320, generator=gen)
      images, _ = model.transform(list(batch))
      model.head(list(model.backbone(images.tensors).values()))
  model.eval()


def main():
  out_dir = sys.argv[1] if len(sys.argv) > 1 else '/tmp/detector'
  os.makedirs(out_dir, exist_ok=True)

  torch.manual_seed(0)
  model = ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
  calibrate_batchnorm(model)
  model.eval()
  model.score_thresh = SCORE_THRESH

  image = torch.rand(1, 3, 320, 320, generator=torch.Generator().manual_seed(1))
  image.numpy().astype('<f4').tofile(os.path.join(out_dir, 'input.bin'))
  with open(os.path.join(out_dir, 'input.json'), 'w') as f:
    json.dump({'dtype': 'float32', 'dims': list(image.shape)}, f)

  # Count the boxes that reach NMS and those it keeps (before the cut to
  # detections_per_img), to show that NMS suppresses something.
  counts = {}
  real_nms = torchvision.ops.boxes.batched_nms

  def counting_nms(boxes, scores, idxs, iou_threshold):
    keep = real_nms(boxes, scores, idxs, iou_threshold)
    counts['before_nms'] = int(boxes.shape[0])
    counts['after_nms'] = int(keep.shape[0])
    return keep

  torchvision.ops.boxes.batched_nms = counting_nms
  try:
    with torch.no_grad():
      ref = model([image[0]])[0]
  finally:
    torchvision.ops.boxes.batched_nms = real_nms
  print('PyTorch: %d boxes into NMS, %d kept by NMS, %d output '
        '(detections_per_img=%d, nms_thresh=%g)' %
        (counts['before_nms'], counts['after_nms'], ref['boxes'].shape[0],
         model.detections_per_img, model.nms_thresh))
  print('PyTorch first box', ref['boxes'][:1].tolist(), 'score',
        ref['scores'][:1].tolist(), 'label', ref['labels'][:1].tolist())

  # torchvision's detectors take a list of images; wrap so the ONNX input is
  # one [1,3,320,320] tensor and the outputs are three plain tensors.
  class Wrapper(torch.nn.Module):

    def __init__(self, m):
      super().__init__()
      self.m = m

    def forward(self, images):
      d = self.m([images[0]])[0]
      return d['boxes'], d['scores'], d['labels']

  path = os.path.join(out_dir, 'detector.onnx')
  start = time.time()
  with torch.no_grad():
    torch.onnx.export(Wrapper(model), (image,), path, opset_version=OPSET,
                      input_names=['images'],
                      output_names=['boxes', 'scores', 'labels'],
                      do_constant_folding=True)
  print('exported %s (opset %d) in %.1f s' % (path, OPSET, time.time() - start))


if __name__ == '__main__':
  main()
