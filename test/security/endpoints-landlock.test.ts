import { everyEndpointReadsNothing } from './endpoints.js';

everyEndpointReadsNothing('landlock');
