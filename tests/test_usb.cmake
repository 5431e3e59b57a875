# libusb replaced at link time by the fakes in test_usb.c (calls from
# drivers/dgt_usb.c into the shared libusb are rewritten to __wrap_*).
target_link_options(${name} PRIVATE
  -Wl,--wrap=libusb_init
  -Wl,--wrap=libusb_exit
  -Wl,--wrap=libusb_get_pollfds
  -Wl,--wrap=libusb_free_pollfds
  -Wl,--wrap=libusb_set_pollfd_notifiers
  -Wl,--wrap=libusb_pollfds_handle_timeouts
  -Wl,--wrap=libusb_get_next_timeout
  -Wl,--wrap=libusb_handle_events_timeout_completed
  -Wl,--wrap=libusb_get_device_list
  -Wl,--wrap=libusb_free_device_list
  -Wl,--wrap=libusb_get_device_descriptor
  -Wl,--wrap=libusb_get_active_config_descriptor
  -Wl,--wrap=libusb_free_config_descriptor
  -Wl,--wrap=libusb_get_bus_number
  -Wl,--wrap=libusb_get_port_numbers
  -Wl,--wrap=libusb_get_device_address
  -Wl,--wrap=libusb_open
  -Wl,--wrap=libusb_close
  -Wl,--wrap=libusb_kernel_driver_active
  -Wl,--wrap=libusb_detach_kernel_driver
  -Wl,--wrap=libusb_claim_interface
  -Wl,--wrap=libusb_release_interface
  -Wl,--wrap=libusb_control_transfer
  -Wl,--wrap=libusb_submit_transfer
  -Wl,--wrap=libusb_cancel_transfer
  -Wl,--wrap=libusb_clear_halt
  -Wl,--wrap=libusb_has_capability
  -Wl,--wrap=libusb_hotplug_register_callback
  -Wl,--wrap=libusb_hotplug_deregister_callback
)
target_link_libraries(${name} PRIVATE PkgConfig::LIBUSB PkgConfig::LIBEVENT)
