
relu
xy"Relu2x:y