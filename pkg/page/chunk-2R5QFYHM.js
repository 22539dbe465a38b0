import{answer,receive}from"./chunk-QBXIIP7M.js";import"./chunk-2UIXINHT.js";import"./chunk-F3QB7YBZ.js";export{answer,receive};
