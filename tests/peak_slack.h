// The slack peak-memory checks allow: AddressSanitizer's shadow memory and quarantine about double a
// process's peak (measured 627 MiB against 400 in the release build; bench's 3-token flash run 101.7 MB
// at -O1), so the sanitizer build allows 2.5 times as much.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
constexpr double kPeakSlack = 2.5;
#else
constexpr double kPeakSlack = 1.0;
#endif
