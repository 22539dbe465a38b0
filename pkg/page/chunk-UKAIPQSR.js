import{answer,receive}from"./chunk-32X7RUMI.js";import"./chunk-2UIXINHT.js";import"./chunk-F3QB7YBZ.js";export{answer,receive};
