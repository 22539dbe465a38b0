import{answer,receive}from"./chunk-BPK3KDTX.js";import"./chunk-Z4GUOCYR.js";import"./chunk-MID53VJA.js";export{answer,receive};
