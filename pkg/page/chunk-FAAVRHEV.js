import{answer,receive}from"./chunk-FP57L4MK.js";import"./chunk-OUYPX36T.js";import"./chunk-L76LR32C.js";export{answer,receive};
