import{answer,receive}from"./chunk-6IWLYS5M.js";import"./chunk-BMEGCALS.js";import"./chunk-AZLTVNG4.js";export{answer,receive};
