import{answer,receive}from"./chunk-UXLVWFSH.js";import"./chunk-OUYPX36T.js";import"./chunk-L76LR32C.js";export{answer,receive};
