// SPDX-License-Identifier: Apache-2.0
#pragma once
// The only header that spells boost::units. Our own base dimensions for information
// (bytes), operations (FLOPs) and currency (USD) sit beside SI length, mass and time,
// so that power and energy are the SI ones. Boost's own byte is a scaled bit and prints
// as "Tib", which is why bytes are a base unit of their own here.
#include <boost/units/base_dimension.hpp>
#include <boost/units/base_unit.hpp>
#include <boost/units/base_units/si/kilogram.hpp>
#include <boost/units/base_units/si/meter.hpp>
#include <boost/units/base_units/si/second.hpp>
#include <boost/units/make_system.hpp>
#include <boost/units/physical_dimensions/energy.hpp>
#include <boost/units/physical_dimensions/power.hpp>
#include <boost/units/physical_dimensions/time.hpp>
#include <boost/units/quantity.hpp>
#include <boost/units/static_constant.hpp>
#include <boost/units/unit.hpp>

namespace gpuplan {
namespace units_detail {
namespace bu = boost::units;
// Positive ordinals: Boost's SI dimensions use -1..-9 and its information dimension -700.
struct information_dim : bu::base_dimension<information_dim, 101> {};
struct operations_dim : bu::base_dimension<operations_dim, 102> {};
struct currency_dim : bu::base_dimension<currency_dim, 103> {};

struct byte_base : bu::base_unit<byte_base, information_dim::dimension_type, 101> {
  static const char* name() { return "byte"; }
  static const char* symbol() { return "B"; }
};
struct flop_base : bu::base_unit<flop_base, operations_dim::dimension_type, 102> {
  static const char* name() { return "flop"; }
  static const char* symbol() { return "FLOP"; }
};
struct usd_base : bu::base_unit<usd_base, currency_dim::dimension_type, 103> {
  static const char* name() { return "dollar"; }
  static const char* symbol() { return "USD"; }
};

using system = bu::make_system<byte_base, flop_base, usd_base, bu::si::meter_base_unit,
                               bu::si::kilogram_base_unit, bu::si::second_base_unit>::type;

using byte_unit = bu::unit<information_dim::dimension_type, system>;
using flop_unit = bu::unit<operations_dim::dimension_type, system>;
using usd_unit = bu::unit<currency_dim::dimension_type, system>;
using second_unit = bu::unit<bu::time_dimension, system>;
using watt_unit = bu::unit<bu::power_dimension, system>;
using joule_unit = bu::unit<bu::energy_dimension, system>;
using byte_rate_unit = bu::divide_typeof_helper<byte_unit, second_unit>::type;
using flop_rate_unit = bu::divide_typeof_helper<flop_unit, second_unit>::type;
using usd_rate_unit = bu::divide_typeof_helper<usd_unit, second_unit>::type;
using usd_per_joule_unit = bu::divide_typeof_helper<usd_unit, joule_unit>::type;
}  // namespace units_detail

using Bytes = boost::units::quantity<units_detail::byte_unit>;
using Flops = boost::units::quantity<units_detail::flop_unit>;
using Usd = boost::units::quantity<units_detail::usd_unit>;
using Seconds = boost::units::quantity<units_detail::second_unit>;
using Watts = boost::units::quantity<units_detail::watt_unit>;
using Joules = boost::units::quantity<units_detail::joule_unit>;
using ByteRate = boost::units::quantity<units_detail::byte_rate_unit>;
using FlopRate = boost::units::quantity<units_detail::flop_rate_unit>;
using UsdRate = boost::units::quantity<units_detail::usd_rate_unit>;  // USD per second
using UsdPerJoule = boost::units::quantity<units_detail::usd_per_joule_unit>;

namespace units {
BOOST_UNITS_STATIC_CONSTANT(byte, units_detail::byte_unit);
BOOST_UNITS_STATIC_CONSTANT(flop, units_detail::flop_unit);
BOOST_UNITS_STATIC_CONSTANT(usd, units_detail::usd_unit);
BOOST_UNITS_STATIC_CONSTANT(second, units_detail::second_unit);
BOOST_UNITS_STATIC_CONSTANT(watt, units_detail::watt_unit);
BOOST_UNITS_STATIC_CONSTANT(joule, units_detail::joule_unit);
}  // namespace units

// Wrapping a plain SI number: used by the catalog loader, the quantity parser and tests.
inline Bytes bytes(double v) { return Bytes::from_value(v); }
inline Flops flops(double v) { return Flops::from_value(v); }
inline Usd usd(double v) { return Usd::from_value(v); }
inline Seconds seconds(double v) { return Seconds::from_value(v); }
inline Watts watts(double v) { return Watts::from_value(v); }
inline Joules joules(double v) { return Joules::from_value(v); }
inline ByteRate bytes_per_s(double v) { return ByteRate::from_value(v); }
inline FlopRate flops_per_s(double v) { return FlopRate::from_value(v); }
inline UsdRate usd_per_s(double v) { return UsdRate::from_value(v); }
inline UsdPerJoule usd_per_joule(double v) { return UsdPerJoule::from_value(v); }

}  // namespace gpuplan
