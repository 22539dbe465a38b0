import{answer,receive}from"./chunk-NYRGYG3Q.js";import"./chunk-BMEGCALS.js";import"./chunk-AZLTVNG4.js";export{answer,receive};
