import{answer,receive}from"./chunk-TSXCMINB.js";import"./chunk-FDYUFUYS.js";import"./chunk-4HJZIF3Y.js";export{answer,receive};
