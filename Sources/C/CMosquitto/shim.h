// Eclipse Mosquitto's client library (libmosquitto), as Swift sees it. Only the Site module imports this module.
#ifndef BLUEDOT_CMOSQUITTO_SHIM_H
#define BLUEDOT_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
