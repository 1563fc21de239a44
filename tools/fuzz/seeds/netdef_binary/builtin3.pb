
reshape
x
sr"Reshape"
ry"Softmax*
axisÿÿÿÿÿÿÿÿÿ2x:yB
s:ÿÿÿÿÿÿÿÿÿ